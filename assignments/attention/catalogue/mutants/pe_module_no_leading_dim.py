"""The stored table has no leading batch axis of size one.

PositionalEncoding whose buffer pe has shape (max_len, d_model), without the leading 1."""
# item: PositionalEncoding
_Base = PositionalEncoding


class PositionalEncoding(_Base):
    def __init__(self, d_model, max_len=5000):
        super().__init__(d_model, max_len)
        self.pe = self.pe[0].clone()

    def forward(self, x):
        return x + self.pe[: x.size(1)]
