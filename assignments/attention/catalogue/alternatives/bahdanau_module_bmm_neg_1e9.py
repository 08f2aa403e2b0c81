"""BahdanauAttention with torch.bmm for the context, scores via expand + cat-free addition,
and the mask as -1e9 (underflows to an exact 0 weight)."""
# item: BahdanauAttention
import torch
from torch import nn


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.W_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, query, keys, mask=None):
        q = self.W_q(query).unsqueeze(1).expand(-1, keys.size(1), -1)
        energy = torch.tanh(q + self.W_k(keys))
        scores = self.v(energy).squeeze(2)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = torch.nn.functional.softmax(scores, dim=1)
        context = torch.bmm(weights.unsqueeze(1), keys).squeeze(1)
        return context, weights
