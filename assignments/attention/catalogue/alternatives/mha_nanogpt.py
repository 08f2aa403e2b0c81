"""nanoGPT's CausalSelfAttention as the contract's MultiHeadAttention: heads by
view(B, T, n_head, C // n_head).transpose(1, 2), scores times 1.0 / math.sqrt(hs) (a
multiplication by the reciprocal, not a division), masked_fill(mask == 0, -inf) (its tril
buffer is 1 = may attend, like the contract's mask), re-assembled by
transpose(1, 2).contiguous().view(B, T, C)."""
# item: MultiHeadAttention
# Source: nanoGPT (karpathy/nanoGPT, model.py), CausalSelfAttention.forward, manual path
# (minGPT's mingpt/model.py CausalSelfAttention is the same code):
#     k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
#     att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
#     att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
#     att = F.softmax(att, dim=-1)
#     y = att @ v
#     y = y.transpose(1, 2).contiguous().view(B, T, C)
#     y = self.c_proj(y)
# Changes for the contract: separate W_q, W_k, W_v instead of one c_attn split in three (the
# same maps), c_proj named W_o, cross-attention (Lq may differ from Lk), the caller's mask in
# place of the registered tril buffer, a ValueError instead of the assert, no dropout, and
# the weights returned.
import math

import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("n_embd must be divisible by n_head")
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)
        self.n_head = num_heads
        self.n_embd = d_model

    def split_heads(self, x):
        B, T, C = x.size()
        return x.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)

    def combine_heads(self, y):
        B, nh, T, hs = y.size()
        return y.transpose(1, 2).contiguous().view(B, T, nh * hs)  # re-assemble all head outputs side by side

    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        # manual implementation of attention
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if mask is not None:
            att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = self.combine_heads(y)
        # output projection
        return self.W_o(y), att
