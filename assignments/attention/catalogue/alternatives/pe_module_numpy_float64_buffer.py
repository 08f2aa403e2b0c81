"""PositionalEncoding whose table is built in NumPy and kept in float64: the buffer is
float64, so forward(float32 x) returns float64 (torch's type promotion)."""
# item: PositionalEncoding
import numpy as np
import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pos = np.arange(max_len)[:, None]
        i = np.arange(0, d_model, 2)[None, :]
        angle = pos / np.power(10000, i / d_model)
        pe = np.zeros((max_len, d_model))
        pe[:, 0::2] = np.sin(angle)
        pe[:, 1::2] = np.cos(angle)
        self.register_buffer("pe", torch.from_numpy(pe)[None])

    def forward(self, x):
        return x + self.pe[:, : x.shape[1]]
