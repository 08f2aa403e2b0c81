"""The output projection is built but never applied to the combined heads.

MultiHeadAttention that forgets the output projection W_o (it is built but never used)."""
# item: MultiHeadAttention
import math

import torch

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.combine_heads(weights @ v), weights
