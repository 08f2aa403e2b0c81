"""A PositionalEncoding (written from the paper) that keeps its table as a plain attribute."""
# item: PositionalEncoding
# expect: pe_module_d2l_plain_attribute
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        if d_model % 2:
            raise ValueError("d_model must be even")
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        frequency = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
        table = torch.zeros(max_len, d_model)
        table[:, 0::2] = torch.sin(position * frequency)
        table[:, 1::2] = torch.cos(position * frequency)
        self.pe = table.unsqueeze(0)

    def forward(self, x):
        return x + self.pe[:, : x.size(1)].to(x.dtype)
