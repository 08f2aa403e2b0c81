"""PositionalEncoding whose forward expands the slice to the batch before adding, and
whose table is filled with a loop over positions and pairs."""
# item: PositionalEncoding
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = torch.zeros(1, max_len, d_model, dtype=torch.float64)
        pos = torch.arange(max_len, dtype=torch.float64)
        for i in range(d_model // 2):
            freq = 1.0 / math.pow(10000.0, 2 * i / d_model)
            pe[0, :, 2 * i] = torch.sin(pos * freq)
            pe[0, :, 2 * i + 1] = torch.cos(pos * freq)
        self.register_buffer("pe", pe.float())

    def forward(self, x):
        return x + self.pe[:, : x.size(1)].expand(x.size(0), -1, -1)
