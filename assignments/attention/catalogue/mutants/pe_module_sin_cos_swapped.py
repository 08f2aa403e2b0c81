"""Sine and cosine are swapped: cosine on the even features and sine on the odd ones.

PositionalEncoding with cos on the even features and sin on the odd ones."""
# item: PositionalEncoding
# loses: pe_is_a_buffer
# says: sin on even
import math

import torch

_Base = PositionalEncoding


class PositionalEncoding(_Base):
    def __init__(self, d_model, max_len=5000):
        super().__init__(d_model, max_len)
        position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64)
                             * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.cos(position * div_term)
        pe[:, 1::2] = torch.sin(position * div_term)
        self.pe = pe.unsqueeze(0).float()
