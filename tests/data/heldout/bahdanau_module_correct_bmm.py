"""A correct BahdanauAttention in the style of another source (bmm for the context)."""
# item: BahdanauAttention
# expect: correct
import torch
from torch import nn


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.W_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, query, keys, mask=None):
        scores = self.v(torch.tanh(self.W_q(query)[:, None, :] + self.W_k(keys)))[..., 0]
        if mask is not None:
            scores = scores.masked_fill(~mask.bool(), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = torch.bmm(weights[:, None, :], keys)[:, 0, :]
        return context, weights
