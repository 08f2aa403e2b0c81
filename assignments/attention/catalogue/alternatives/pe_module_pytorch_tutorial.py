"""The PyTorch nn.Transformer tutorial's PositionalEncoding turned batch-first: an integer
position arange times div_term = exp(arange(0, d, 2) * (-log(10000) / d)), in float32,
registered as the buffer pe of shape (1, max_len, d_model)."""
# item: PositionalEncoding
# Source: PyTorch tutorial "Language Modeling with nn.Transformer and torchtext"
# (pytorch/tutorials, beginner_source/transformer_tutorial.py), PositionalEncoding.
# The tutorial is sequence-first (pe of shape (max_len, 1, d_model), x + pe[:x.size(0)]; see the
# mutant pe_module_pytorch_tutorial_seq_first); the contract is batch-first, so pe is
# (1, max_len, d_model) and forward adds pe[:, :x.size(1)]. No dropout.
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]
