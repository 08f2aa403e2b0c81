"""The table is stored as a trainable parameter instead of a fixed buffer.

PositionalEncoding that stores the table as an nn.Parameter instead of a buffer."""
# item: PositionalEncoding
# loses: pe_is_a_buffer
# says: Parameter | register_buffer
from torch import nn

_Base = PositionalEncoding


class PositionalEncoding(_Base):
    def __init__(self, d_model, max_len=5000):
        super().__init__(d_model, max_len)
        table = self.pe
        del self.pe
        self.pe = nn.Parameter(table)
