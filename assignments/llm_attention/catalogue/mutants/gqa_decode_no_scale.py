"""When decoding, the scores are not divided by the square root of the head size.

GroupedQueryAttention whose decode forgets the 1/sqrt(d_k) that forward applies: a decode path
written apart from forward, as inference code often is."""
# item: GroupedQueryAttention
# loses: decode_scaled_by_sqrt_dk, decode_equals_causal_forward
# says: without the scale
import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def decode(self, x_t, cache=None):
        q = self._heads(self.W_q(x_t), self.num_heads)
        k = self._heads(self.W_k(x_t), self.num_kv_heads)
        v = self._heads(self.W_v(x_t), self.num_kv_heads)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        keys = k.repeat_interleave(self.group, dim=1)
        values = v.repeat_interleave(self.group, dim=1)
        weights = torch.softmax(q @ keys.transpose(-2, -1), dim=-1)
        batch = x_t.shape[0]
        out_t = self.W_o((weights @ values).transpose(1, 2).reshape(batch, 1, self.num_heads * self.d_k))
        return out_t, (k, v)
