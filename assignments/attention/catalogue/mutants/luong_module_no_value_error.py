"""An unknown method falls back to the dot score instead of raising a ValueError.

LuongAttention that accepts any method and falls back to the dot score."""
# item: LuongAttention
# loses: rejects_unknown_method
import torch
from torch import nn


class LuongAttention(nn.Module):
    def __init__(self, hidden_dim, method="general"):
        super().__init__()
        self.method = method
        if method == "general":
            self.W = nn.Linear(hidden_dim, hidden_dim, bias=False)
        elif method == "concat":
            self.W = nn.Linear(2 * hidden_dim, hidden_dim)
            self.v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(self, query, keys, values, mask=None):
        if self.method == "general":
            scores = torch.einsum("bd,bjd->bj", self.W(query), keys)
        elif self.method == "concat":
            pairs = torch.cat([query.unsqueeze(1).expand_as(keys), keys], dim=-1)
            scores = self.v(torch.tanh(self.W(pairs))).squeeze(-1)
        else:
            scores = torch.einsum("bd,bjd->bj", query, keys)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return torch.einsum("bj,bjv->bv", weights, values), weights
