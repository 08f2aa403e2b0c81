"""GroupedQueryAttention whose output comes from torch's
scaled_dot_product_attention(..., enable_gqa=True) (the same mask convention), with the weights
computed separately to return them; decode calls it on the one new query without a mask."""
# item: GroupedQueryAttention
# Source: PyTorch, torch.nn.functional.scaled_dot_product_attention (enable_gqa, torch >= 2.5)
import math

import torch
from torch.nn import functional as F

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def forward(self, x, mask=None):
        batch, length, _ = x.shape
        q = self._heads(self.W_q(x), self.num_heads)
        k = self._heads(self.W_k(x), self.num_kv_heads)
        v = self._heads(self.W_v(x), self.num_kv_heads)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        keys = k.repeat_interleave(self.group, dim=1)
        scores = q @ keys.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.W_o(out.transpose(1, 2).reshape(batch, length, -1)), weights

    def decode(self, x_t, cache=None):
        q = self._heads(self.W_q(x_t), self.num_heads)
        k = self._heads(self.W_k(x_t), self.num_kv_heads)
        v = self._heads(self.W_v(x_t), self.num_kv_heads)
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=-2), torch.cat([cache[1], v], dim=-2)
        out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return self.W_o(out.transpose(1, 2).reshape(x_t.shape[0], 1, -1)), (k, v)
