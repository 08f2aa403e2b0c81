"""The textbook PositionalEncoding: the table computed in float32 with
div_term = exp(arange(0, d, 2) * -log(10000) / d), max_len=5000 (off by ~1e-4..1e-3 from
the float64 table near position 5000, which the item's float32 tolerance allows)."""
# item: PositionalEncoding
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, : x.size(1), :]
