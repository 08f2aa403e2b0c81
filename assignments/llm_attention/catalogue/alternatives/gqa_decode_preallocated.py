"""GroupedQueryAttention whose decode writes each token into a buffer it allocates ahead and
grows by doubling, as inference engines preallocate their KV cache, and returns views of the
tokens so far (B, num_kv_heads, T, d_k); the next call finds the buffer behind the views and
writes past them, in place."""
# item: GroupedQueryAttention
import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def decode(self, x_t, cache=None):
        q = self._heads(self.W_q(x_t), self.num_heads)
        k = self._heads(self.W_k(x_t), self.num_kv_heads)
        v = self._heads(self.W_v(x_t), self.num_kv_heads)
        used = 0 if cache is None else cache[0].shape[2]
        if cache is not None and cache[0]._base is not None and cache[0]._base.shape[2] > used:
            buffers = (cache[0]._base, cache[1]._base)
        else:
            size = max(4, 2 * (used + 1))
            buffers = tuple(torch.zeros(k.shape[0], k.shape[1], size, k.shape[3], dtype=k.dtype) for _ in range(2))
            if cache is not None:
                buffers[0][:, :, :used] = cache[0]
                buffers[1][:, :, :used] = cache[1]
        with torch.no_grad():
            buffers[0][:, :, used] = k[:, :, 0]
            buffers[1][:, :, used] = v[:, :, 0]
        keys, values = buffers[0][:, :, :used + 1], buffers[1][:, :, :used + 1]
        out_t, _ = self._attend(q, keys, values, None)
        return out_t, (keys, values)
