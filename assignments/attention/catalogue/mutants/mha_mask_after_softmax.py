"""The masked weights are set to zero after the softmax, so the rows no longer sum to one.

MultiHeadAttention that zeroes the masked weights after the softmax without
renormalising: masked weights are 0 but the rows no longer sum to 1."""
# item: MultiHeadAttention
# loses: mask_blocks_keys
# says: sums to | not 1
import math

import torch

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.d_k), dim=-1)
        if mask is not None:
            weights = weights * mask
        return self.W_o(self.combine_heads(weights @ v)), weights
