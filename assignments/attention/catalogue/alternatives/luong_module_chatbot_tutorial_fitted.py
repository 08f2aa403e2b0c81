"""The PyTorch chatbot tutorial's Luong Attn layer (dot_score, general_score, concat_score as
torch.sum of products over the hidden axis) changed as far as the contract needs: the general
Linear applied to the query without bias, v an nn.Linear."""
# item: LuongAttention
# Source: PyTorch tutorial "Chatbot Tutorial" (pytorch/tutorials,
# beginner_source/chatbot_tutorial.py), class Attn. Changes for the contract: batch-first
# tensors (no .t()), self.attn renamed W; general_score applies W to the hidden state (the
# query) instead of the encoder outputs, and without bias (the unchanged order and bias are the
# mutant luong_module_chatbot_tutorial); v = nn.Linear(hidden_dim, 1, bias=False) instead of a
# bare Parameter; a mask; the context from the values.
import torch
import torch.nn.functional as F
from torch import nn


class LuongAttention(nn.Module):
    def __init__(self, hidden_dim, method="general"):
        super().__init__()
        self.method = method
        if self.method not in ["dot", "general", "concat"]:
            raise ValueError(self.method, "is not an appropriate attention method.")
        self.hidden_size = hidden_dim
        if self.method == "general":
            self.W = nn.Linear(self.hidden_size, hidden_dim, bias=False)
        elif self.method == "concat":
            self.W = nn.Linear(self.hidden_size * 2, hidden_dim)
            self.v = nn.Linear(hidden_dim, 1, bias=False)

    def dot_score(self, hidden, encoder_output):
        return torch.sum(hidden * encoder_output, dim=2)

    def general_score(self, hidden, encoder_output):
        return torch.sum(self.W(hidden) * encoder_output, dim=2)

    def concat_score(self, hidden, encoder_output):
        energy = self.W(torch.cat((hidden.expand(-1, encoder_output.size(1), -1), encoder_output), 2)).tanh()
        return self.v(energy).squeeze(2)

    def forward(self, query, keys, values, mask=None):
        hidden = query.unsqueeze(1)
        if self.method == "general":
            attn_energies = self.general_score(hidden, keys)
        elif self.method == "concat":
            attn_energies = self.concat_score(hidden, keys)
        else:
            attn_energies = self.dot_score(hidden, keys)
        if mask is not None:
            attn_energies = attn_energies.masked_fill(~mask, float("-inf"))
        weights = F.softmax(attn_energies, dim=1)
        return torch.bmm(weights.unsqueeze(1), values).squeeze(1), weights
