"""An unknown method is not rejected with a ValueError when the module is built.

The course module's LuongAttention (the tutorial "Module 05: Attention Mechanism", section 3
"Luong Attention (Multiplicative)") exactly as taught: it accepts any method, builds no layer
for an unknown one and fails only in forward (scores is never assigned), where the contract asks
for a ValueError when the module is built."""
# item: LuongAttention
# loses: rejects_unknown_method
# Source: the course's own module "Module 05: Attention Mechanism", section 3 "Luong Attention
# (Multiplicative)", class LuongAttention(hidden_dim, method='general'), unchanged.
import torch
import torch.nn.functional as F
from torch import nn


class LuongAttention(nn.Module):
    def __init__(self, hidden_dim, method="general"):
        super(LuongAttention, self).__init__()
        self.method = method
        self.hidden_dim = hidden_dim
        if method == "general":
            self.W = nn.Linear(hidden_dim, hidden_dim, bias=False)
        elif method == "concat":
            self.W = nn.Linear(hidden_dim * 2, hidden_dim)
            self.v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(self, query, keys, values, mask=None):
        if self.method == "dot":
            scores = torch.bmm(query.unsqueeze(1), keys.transpose(1, 2)).squeeze(1)
        elif self.method == "general":
            scores = torch.bmm(self.W(query).unsqueeze(1), keys.transpose(1, 2)).squeeze(1)
        elif self.method == "concat":
            query_expanded = query.unsqueeze(1).expand(-1, keys.size(1), -1)
            combined = torch.cat([query_expanded, keys], dim=2)
            scores = self.v(torch.tanh(self.W(combined))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        attention_weights = F.softmax(scores, dim=1)
        context = torch.bmm(attention_weights.unsqueeze(1), values).squeeze(1)
        return context, attention_weights
