"""The Annotated Transformer's MultiHeadedAttention: heads via view(nbatches, -1, h, d_k)
.transpose(1, 2), attention() with masked_fill(mask == 0, -1e9), concat via
.contiguous().view(), the last linear as the output projection."""
# item: MultiHeadAttention
# Source: The Annotated Transformer (harvardnlp/annotated-transformer,
# the_annotated_transformer.py), attention() and MultiHeadedAttention.
# Changes for the contract, nothing else: the arguments are (d_model, num_heads) not
# (h, d_model, dropout); ValueError instead of `assert d_model % h == 0` (see the mutant
# mha_annotated_transformer_assert); the four clones(nn.Linear) are named W_q, W_k, W_v, W_o;
# no dropout; the mask is not unsqueezed (the contract's mask already broadcasts to
# (B, H, Lq, Lk)); split_heads/combine_heads are the two view lines as methods; forward
# returns (output, self.attn).
import math

import torch
from torch import nn


def attention(query, key, value, mask=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        "Take in model size and number of heads."
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        # We assume d_v always equals d_k
        self.d_k = d_model // num_heads
        self.h = num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)
        self.attn = None

    def split_heads(self, x):
        return x.view(x.size(0), -1, self.h, self.d_k).transpose(1, 2)

    def combine_heads(self, x):
        return x.transpose(1, 2).contiguous().view(x.size(0), -1, self.h * self.d_k)

    def forward(self, query, key, value, mask=None):
        # 1) Do all the linear projections in batch from d_model => h x d_k
        query, key, value = [
            self.split_heads(lin(x)) for lin, x in zip((self.W_q, self.W_k, self.W_v), (query, key, value))
        ]
        # 2) Apply attention on all the projected vectors in batch.
        x, self.attn = attention(query, key, value, mask=mask)
        # 3) "Concat" using a view and apply a final linear.
        x = self.combine_heads(x)
        return self.W_o(x), self.attn
