"""The mask is applied inverted, so masked keys are the ones attended to.

GroupedQueryAttention that fills the scores where the mask is True (torch.nn.MultiheadAttention's
convention) instead of where it is False."""
# item: GroupedQueryAttention
# loses: masked_weights_are_zero, mask_blocks_keys
import math

import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def _attend(self, q, k, v, mask):
        k = k.repeat_interleave(self.group, dim=1)
        v = v.repeat_interleave(self.group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        batch, _, length, _ = q.shape
        heads = (weights @ v).transpose(1, 2).reshape(batch, length, self.num_heads * self.d_k)
        return self.W_o(heads), weights
