"""A model size that the number of heads does not divide is refused with an assertion rather than a ValueError.

The Annotated Transformer's MultiHeadedAttention with its `assert d_model % h == 0`:
an indivisible d_model raises AssertionError (and nothing at all under python -O), where
the contract asks for a ValueError."""
# item: MultiHeadAttention
# loses: rejects_indivisible_d_model
# Source: The Annotated Transformer (harvardnlp/annotated-transformer,
# the_annotated_transformer.py), MultiHeadedAttention.__init__: `assert d_model % h == 0`.
# Otherwise the port of alternatives/mha_annotated_transformer.py.
import math

import torch
from torch import nn


def attention(query, key, value, mask=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        assert d_model % num_heads == 0
        self.d_k = d_model // num_heads
        self.h = num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        return x.view(x.size(0), -1, self.h, self.d_k).transpose(1, 2)

    def combine_heads(self, x):
        return x.transpose(1, 2).contiguous().view(x.size(0), -1, self.h * self.d_k)

    def forward(self, query, key, value, mask=None):
        query, key, value = [
            self.split_heads(lin(x)) for lin, x in zip((self.W_q, self.W_k, self.W_v), (query, key, value))
        ]
        x, attn = attention(query, key, value, mask=mask)
        return self.W_o(self.combine_heads(x)), attn
