"""A MultiHeadAttention scaled by the square root of d_model, not of d_k: not in the catalogue."""
# item: MultiHeadAttention
# expect: none
import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("num_heads must divide d_model")
        self.h, self.d_k = num_heads, d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        b, n, _ = x.shape
        return x.view(b, n, self.h, self.d_k).permute(0, 2, 1, 3)

    def combine_heads(self, x):
        b, _, n, _ = x.shape
        return x.permute(0, 2, 1, 3).reshape(b, n, self.h * self.d_k)

    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        scores = q @ k.transpose(-1, -2) / torch.tensor(float(self.h * self.d_k)).sqrt()
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        return self.W_o(self.combine_heads(weights @ v)), weights
