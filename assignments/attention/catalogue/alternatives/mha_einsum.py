"""MultiHeadAttention written with einsum, reshaping the heads inline."""
# item: MultiHeadAttention
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.h = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        b, n, _ = x.shape
        return torch.einsum("blhd->bhld", x.reshape(b, n, self.h, self.d_k))

    def combine_heads(self, x):
        b, h, n, d = x.shape
        return torch.einsum("bhld->blhd", x).reshape(b, n, h * d)

    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        weights = scores.softmax(dim=-1)
        out = torch.einsum("bhqk,bhkd->bhqd", weights, v)
        return self.W_o(self.combine_heads(out)), weights
