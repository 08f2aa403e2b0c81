"""The mask is read the other way round: True means a key may be attended to.

LuongAttention with masked_fill(mask, -inf): the tutorials' 1 = blocked convention."""
# item: LuongAttention
# loses: dot_masked_keys_get_zero_weight, general_masked_keys_get_zero_weight, concat_masked_keys_get_zero_weight, dot_forward_matches_definition
import torch
from torch import nn


class LuongAttention(nn.Module):
    def __init__(self, hidden_dim, method="general"):
        if method not in ("dot", "general", "concat"):
            raise ValueError(f"unknown method {method!r}")
        super().__init__()
        self.method = method
        if method == "general":
            self.W = nn.Linear(hidden_dim, hidden_dim, bias=False)
        elif method == "concat":
            self.W = nn.Linear(2 * hidden_dim, hidden_dim)
            self.v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(self, query, keys, values, mask=None):
        if self.method == "dot":
            scores = torch.einsum("bd,bjd->bj", query, keys)
        elif self.method == "general":
            scores = torch.einsum("bd,bjd->bj", self.W(query), keys)
        else:
            pairs = torch.cat([query.unsqueeze(1).expand_as(keys), keys], dim=-1)
            scores = self.v(torch.tanh(self.W(pairs))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return torch.einsum("bj,bjv->bv", weights, values), weights
