"""LuongAttention with einsum for the products and, for concat, W split into its query and key
halves (W(cat(q, k)) = q W_q^T + k W_k^T + b) so the query's half is computed once; masking with
torch.where and a finite minimum before the softmax, then the masked weights set to 0."""
# item: LuongAttention
import torch
from torch import nn


class LuongAttention(nn.Module):
    def __init__(self, hidden_dim, method="general"):
        super().__init__()
        if method not in {"dot", "general", "concat"}:
            raise ValueError("method must be 'dot', 'general' or 'concat'")
        self.method, self.hidden_dim = method, hidden_dim
        if method == "general":
            self.W = nn.Linear(hidden_dim, hidden_dim, bias=False)
        if method == "concat":
            self.W = nn.Linear(2 * hidden_dim, hidden_dim)
            self.v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(self, query, keys, values, mask=None):
        h = self.hidden_dim
        if self.method == "concat":
            w_q, w_k = self.W.weight[:, :h], self.W.weight[:, h:]
            hidden = torch.tanh((query @ w_q.T).unsqueeze(1) + keys @ w_k.T + self.W.bias)
            scores = torch.einsum("bjh,h->bj", hidden, self.v.weight[0])
        else:
            q = self.W(query) if self.method == "general" else query
            scores = torch.einsum("bh,bjh->bj", q, keys)
        if mask is not None:
            scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1)
        if mask is not None:
            weights = weights * mask
        return torch.einsum("bj,bjv->bv", weights, values), weights
