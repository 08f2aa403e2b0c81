"""MultiHeadAttention masking with -1e9 instead of -inf (the exponential underflows to an
exact 0 in float32 and float64)."""
# item: MultiHeadAttention
import math

import torch

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.combine_heads(torch.matmul(weights, v))), weights
