"""A MultiHeadAttention with einsum whose mask blocks where it is True (the tutorials' convention)."""
# item: MultiHeadAttention
# expect: mha_inverted_mask
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"{num_heads} heads do not divide d_model = {d_model}")
        self.num_heads, self.d_k = num_heads, d_model // num_heads
        self.W_q, self.W_k = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.W_v, self.W_o = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)

    def split_heads(self, x):
        return x.unflatten(-1, (self.num_heads, self.d_k)).transpose(-3, -2)

    def combine_heads(self, x):
        return x.transpose(-3, -2).flatten(-2)

    def forward(self, query, key, value, mask=None):
        q, k, v = (self.split_heads(f(t)) for f, t in ((self.W_q, query), (self.W_k, key), (self.W_v, value)))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.combine_heads(torch.einsum("bhqk,bhkd->bhqd", weights, v))), weights
