"""The cache stores a copy of the keys and values for every query head instead of each shared head once.

GroupedQueryAttention whose decode repeats the key/value heads for every query head before
caching them: the outputs are right, but the cache is num_heads / num_kv_heads times larger,
which is what grouped-query attention exists to avoid."""
# item: GroupedQueryAttention
# loses: cache_shape
# says: a copy for every query head
import math

import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def decode(self, x_t, cache=None):
        q = self._heads(self.W_q(x_t), self.num_heads)
        k = self._heads(self.W_k(x_t), self.num_kv_heads).repeat_interleave(self.group, dim=1)
        v = self._heads(self.W_v(x_t), self.num_kv_heads).repeat_interleave(self.group, dim=1)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.d_k), dim=-1)
        batch = x_t.shape[0]
        out_t = self.W_o((weights @ v).transpose(1, 2).reshape(batch, 1, self.num_heads * self.d_k))
        return out_t, (k, v)
