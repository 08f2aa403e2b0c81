"""The course module's LuongAttention (the tutorial "Module 05: Attention Mechanism", section 3
"Luong Attention (Multiplicative)") with the one line the contract adds: a ValueError for an
unknown method. Otherwise as taught: torch.bmm for the dot and general scores, the query
expanded over the keys and concatenated first for concat, masked_fill(mask == 0, -inf),
F.softmax over dim 1, the context torch.bmm(weights, values)."""
# item: LuongAttention
# Source: the course's own module "Module 05: Attention Mechanism", section 3 "Luong Attention
# (Multiplicative)", class LuongAttention(hidden_dim, method='general'). Change for the
# contract: the ValueError in __init__ (see the mutant luong_module_course_unchanged).
import torch
import torch.nn.functional as F
from torch import nn


class LuongAttention(nn.Module):
    def __init__(self, hidden_dim, method="general"):
        super(LuongAttention, self).__init__()
        if method not in ("dot", "general", "concat"):
            raise ValueError(f"unknown attention method {method!r}")
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
