"""The Annotated Transformer's PositionalEncoding: the table computed "once in log space"
in float32 from an integer arange, registered as a buffer of shape (1, max_len, d_model)."""
# item: PositionalEncoding
# Source: The Annotated Transformer (harvardnlp/annotated-transformer,
# the_annotated_transformer.py), PositionalEncoding. The one change for the contract: no
# dropout (the constructor is (d_model, max_len=5000), forward returns x + pe).
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    "Implement the PE function."

    def __init__(self, d_model, max_len=5000):
        super().__init__()
        # Compute the positional encodings once in log space.
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[:, : x.size(1)].requires_grad_(False)
