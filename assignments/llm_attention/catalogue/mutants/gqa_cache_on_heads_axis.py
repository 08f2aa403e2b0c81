"""The cache grows along another axis than the tokens.

GroupedQueryAttention whose decode concatenates the new key and value to the cache on axis 1
(the heads) instead of axis 2 (the tokens)."""
# item: GroupedQueryAttention
# loses: cache_shape, decode_equals_causal_forward
import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def decode(self, x_t, cache=None):
        q = self._heads(self.W_q(x_t), self.num_heads)
        k = self._heads(self.W_k(x_t), self.num_kv_heads)
        v = self._heads(self.W_v(x_t), self.num_kv_heads)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=1)
            v = torch.cat([cache[1], v], dim=1)
        out_t, _ = self._attend(q, k, v, None)
        return out_t, (k, v)
