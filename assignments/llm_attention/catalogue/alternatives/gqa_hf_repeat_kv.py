"""GroupedQueryAttention that repeats the key/value heads as Hugging Face's Llama does
(repeat_kv: expand a new group axis after the heads, then reshape), a loop-free
repeat_interleave; decode caches the heads before they are repeated."""
# item: GroupedQueryAttention
# Source: Hugging Face transformers, models/llama/modeling_llama.py (repeat_kv)
import math

import torch

_Base = GroupedQueryAttention


def _repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class GroupedQueryAttention(_Base):
    def _attend(self, q, k, v, mask):
        key_states = _repeat_kv(k, self.group)
        value_states = _repeat_kv(v, self.group)
        attn_weights = torch.matmul(q, key_states.transpose(2, 3)) / math.sqrt(self.d_k)
        if mask is not None:
            attn_weights = attn_weights.masked_fill(~mask, torch.finfo(attn_weights.dtype).min)
        attn_weights = torch.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
        attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).contiguous()
        batch, length = q.shape[0], q.shape[2]
        return self.W_o(attn_output.reshape(batch, length, -1)), attn_weights
