"""Each query head reads the key and value head of its index modulo the number of key and value heads instead of the head of its group.

GroupedQueryAttention that tiles the key/value heads with repeat (query head h reads kv head
h % num_kv_heads) where repeat_interleave is needed (h // group): the order of
`k.repeat(1, group, 1, 1)`, a common slip when porting Llama's repeat_kv."""
# item: GroupedQueryAttention
# loses: query_head_reads_kv_head_h_div_group
# says: reads key/value head | h % num_kv_heads, as repeat does
import math

import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def _attend(self, q, k, v, mask):
        k = k.repeat(1, self.group, 1, 1)
        v = v.repeat(1, self.group, 1, 1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        batch, _, length, _ = q.shape
        heads = (weights @ v).transpose(1, 2).reshape(batch, length, self.num_heads * self.d_k)
        return self.W_o(heads), weights
