"""MultiHeadAttention in the annotated-transformer style: view(B, -1, H, d_k).transpose(1, 2),
.contiguous().view(...) to combine, and torch.where for the mask."""
# item: MultiHeadAttention
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"{d_model} is not divisible by {num_heads}")
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(d_model, d_model) for _ in range(4))

    def split_heads(self, x):
        return x.view(x.size(0), -1, self.num_heads, self.d_k).transpose(1, 2)

    def combine_heads(self, x):
        return x.transpose(1, 2).contiguous().view(x.size(0), -1, self.num_heads * self.d_k)

    def forward(self, query, key, value, mask=None):
        q, k, v = (self.split_heads(lin(x)) for lin, x in
                   zip((self.W_q, self.W_k, self.W_v), (query, key, value)))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask is not None:
            scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.combine_heads(torch.matmul(weights, v))), weights
