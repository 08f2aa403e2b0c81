"""BahdanauAttention with the context as an explicit weighted sum and the mask via
torch.where (the reference uses bmm and masked_fill)."""
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
        scores = self.v(torch.tanh(self.W_q(query)[:, None, :] + self.W_k(keys)))[..., 0]
        if mask is not None:
            scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
        weights = torch.softmax(scores, dim=1)
        context = (weights.unsqueeze(-1) * keys).sum(dim=1)
        return context, weights
