"""The module expects the sequence axis first, as in the PyTorch tutorial, so on batch-first input it adds the encoding of the batch index instead of the position.

The PyTorch nn.Transformer tutorial's PositionalEncoding as it is: sequence-first, pe of
shape (max_len, 1, d_model) and x + pe[:x.size(0)], so on the contract's batch-first input it
adds the encoding of the batch index, not of the position."""
# item: PositionalEncoding
# loses: pe_is_a_buffer, forward_adds_encoding, default_max_len
# Source: PyTorch tutorial "Language Modeling with nn.Transformer and torchtext"
# (pytorch/tutorials, beginner_source/transformer_tutorial.py), PositionalEncoding; no dropout.
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        """x: Tensor, shape ``[seq_len, batch_size, embedding_dim]``"""
        return x + self.pe[:x.size(0)]
