"""In the general score the layer W is applied to the keys instead of the query.

LuongAttention's general score with W applied to the keys: W(keys[:, j]) . query, the
transposed W."""
# item: LuongAttention
# loses: general_forward_matches_definition, general_gradients_flow
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
            scores = torch.einsum("bd,bjd->bj", query, self.W(keys))
        else:
            pairs = torch.cat([query.unsqueeze(1).expand_as(keys), keys], dim=-1)
            scores = self.v(torch.tanh(self.W(pairs))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return torch.einsum("bj,bjv->bv", weights, values), weights
