"""GroupedQueryAttention that never repeats the keys: the queries are reshaped to
(B, num_kv_heads, group, L, d_k) so that each group of consecutive query heads meets its one
key/value head by broadcasting; decode keeps the cache as it is."""
# item: GroupedQueryAttention
import math

import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def _attend(self, q, k, v, mask):
        batch, heads, length, d_k = q.shape
        grouped = q.reshape(batch, self.num_kv_heads, self.group, length, d_k)
        scores = grouped @ k.unsqueeze(2).transpose(-2, -1) / math.sqrt(d_k)  # (B, H_kv, group, Lq, Lk)
        scores = scores.reshape(batch, heads, length, -1)
        if mask is not None:
            scores = scores.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        out = weights.reshape(batch, self.num_kv_heads, self.group, length, -1) @ v.unsqueeze(2)
        out = out.reshape(batch, heads, length, d_k).transpose(1, 2).reshape(batch, length, heads * d_k)
        return self.W_o(out), weights
