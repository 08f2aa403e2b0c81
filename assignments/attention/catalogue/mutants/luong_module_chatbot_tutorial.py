"""This follows the chatbot tutorial, whose general score applies the layer to the keys and whose layers do not match the required ones.

The PyTorch chatbot tutorial's Luong Attn layer: its general score applies its Linear (with
bias) to the encoder outputs, hidden . attn(encoder_output), which is W on the keys (the
transposed W of the contract's W(query) . keys); its concat v is a bare nn.Parameter."""
# item: LuongAttention
# loses: general_has_required_submodules, general_forward_matches_definition, concat_has_required_submodules
# Source: PyTorch tutorial "Chatbot Tutorial" (pytorch/tutorials,
# beginner_source/chatbot_tutorial.py), class Attn: dot_score = torch.sum(hidden *
# encoder_output, dim=2), general_score = torch.sum(hidden * self.attn(encoder_output), dim=2),
# concat_score = torch.sum(self.v * self.attn(torch.cat((hidden.expand(...), encoder_output),
# 2)).tanh(), dim=2), F.softmax over the source positions. Changes for the contract: batch-first
# tensors instead of (max_length, batch, hidden) (so no .t()), self.attn renamed W, the
# signature (hidden_dim, method), a mask, the context from the values; the score functions kept.
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
            self.W = nn.Linear(self.hidden_size, hidden_dim)
        elif self.method == "concat":
            self.W = nn.Linear(self.hidden_size * 2, hidden_dim)
            self.v = nn.Parameter(torch.rand(hidden_dim))

    def dot_score(self, hidden, encoder_output):
        return torch.sum(hidden * encoder_output, dim=2)

    def general_score(self, hidden, encoder_output):
        energy = self.W(encoder_output)
        return torch.sum(hidden * energy, dim=2)

    def concat_score(self, hidden, encoder_output):
        energy = self.W(torch.cat((hidden.expand(-1, encoder_output.size(1), -1), encoder_output), 2)).tanh()
        return torch.sum(self.v * energy, dim=2)

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
