"""MultiHeadAttention that gets the output from F.scaled_dot_product_attention (same mask
convention) and computes the weights separately to return them."""
# item: MultiHeadAttention
import math

import torch
from torch.nn import functional as F

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.combine_heads(out)), weights
