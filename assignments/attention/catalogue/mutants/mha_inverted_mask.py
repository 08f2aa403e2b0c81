"""The mask is read with the opposite convention: the positions marked True, which may be attended to, are the ones blocked.

MultiHeadAttention with the tutorials' mask convention: masked_fill(mask, -inf) blocks the
positions the contract says may be attended to."""
# item: MultiHeadAttention
# loses: mask_blocks_keys
# says: the mask blocks key | exactly 0
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
            scores = scores.masked_fill(mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.combine_heads(weights @ v)), weights
