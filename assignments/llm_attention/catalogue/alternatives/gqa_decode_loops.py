"""GroupedQueryAttention whose decode loops over the query heads, each reading its key/value
head h // group from a cache kept as a list of the tokens' keys and values stacked on each
call, and returns the cache as a list [K, V]."""
# item: GroupedQueryAttention
import math

import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def decode(self, x_t, cache=None):
        d_k = self.d_k
        k_new = self.W_k(x_t).reshape(x_t.shape[0], 1, self.num_kv_heads, d_k).permute(0, 2, 1, 3)
        v_new = self.W_v(x_t).reshape(x_t.shape[0], 1, self.num_kv_heads, d_k).permute(0, 2, 1, 3)
        keys = k_new if cache is None else torch.cat([cache[0], k_new], dim=2)
        values = v_new if cache is None else torch.cat([cache[1], v_new], dim=2)
        q = self.W_q(x_t)[:, 0]  # (B, d_model)
        heads = []
        for h in range(self.num_heads):
            g = h // self.group
            q_h = q[:, h * d_k:(h + 1) * d_k]  # (B, d_k)
            scores = torch.einsum("bd,btd->bt", q_h, keys[:, g]) / math.sqrt(d_k)
            heads.append(torch.einsum("bt,btd->bd", torch.softmax(scores, dim=-1), values[:, g]))
        return self.W_o(torch.cat(heads, dim=-1)).unsqueeze(1), [keys, values]
