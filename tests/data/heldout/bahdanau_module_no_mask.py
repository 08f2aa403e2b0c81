"""A BahdanauAttention (after the 2014 paper) that takes a mask and forgets to use it."""
# item: BahdanauAttention
# expect: bahdanau_module_ignores_mask
import torch
from torch import nn


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.W_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, query, keys, mask=None):
        energy = torch.tanh(self.W_k(keys) + self.W_q(query).unsqueeze(-2))
        scores = self.v(energy).squeeze(-1)
        weights = torch.softmax(scores, dim=-1)
        context = (weights.unsqueeze(-1) * keys).sum(dim=-2)
        return context, weights
