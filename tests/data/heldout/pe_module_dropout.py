"""A PositionalEncoding with the tutorials' dropout kept in: its output is random in training
mode. Not in the catalogue, and no mutant can reproduce random output."""
# item: PositionalEncoding
# expect: none
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        if d_model % 2:
            raise ValueError("d_model must be even")
        self.dropout = nn.Dropout(0.1)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.shape[1]])
