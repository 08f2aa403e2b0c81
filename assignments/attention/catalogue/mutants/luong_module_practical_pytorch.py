"""This follows the practical PyTorch tutorial, whose general score applies the layer to the keys and whose concat score has no tanh.

The practical-pytorch seq2seq tutorial's Attn: a loop over the source positions, the general
Linear (with bias) applied to each encoder output (W on the keys), and a concat score with no
tanh at all: v . W(cat(hidden, encoder_output))."""
# item: LuongAttention
# loses: general_has_required_submodules, general_forward_matches_definition, concat_forward_matches_definition
# Source: spro/practical-pytorch, seq2seq-translation/seq2seq-translation.ipynb, class Attn:
# score(hidden, encoder_output) is hidden.dot(encoder_output) (dot),
# hidden.dot(self.attn(encoder_output)) (general), self.other.dot(self.attn(torch.cat((hidden,
# encoder_output), 1))) (concat), filled into attn_energies[i] for i in range(seq_len), then
# F.softmax. Changes for the contract: a batch (the tutorial has one sentence), attn renamed W,
# other renamed v as nn.Linear(hidden_dim, 1, bias=False), a mask, the context from the values.
import torch
import torch.nn.functional as F
from torch import nn


class LuongAttention(nn.Module):
    def __init__(self, hidden_dim, method="general"):
        super().__init__()
        if method not in ("dot", "general", "concat"):
            raise ValueError(f"unknown method {method}")
        self.method = method
        self.hidden_size = hidden_dim
        if self.method == "general":
            self.W = nn.Linear(self.hidden_size, hidden_dim)
        elif self.method == "concat":
            self.W = nn.Linear(self.hidden_size * 2, hidden_dim)
            self.v = nn.Linear(hidden_dim, 1, bias=False)

    def score(self, hidden, encoder_output):
        if self.method == "dot":
            return (hidden * encoder_output).sum(-1)
        if self.method == "general":
            return (hidden * self.W(encoder_output)).sum(-1)
        return self.v(self.W(torch.cat((hidden, encoder_output), 1))).squeeze(-1)

    def forward(self, query, keys, values, mask=None):
        seq_len = keys.size(1)
        attn_energies = torch.stack([self.score(query, keys[:, i]) for i in range(seq_len)], dim=1)
        if mask is not None:
            attn_energies = attn_energies.masked_fill(~mask, float("-inf"))
        weights = F.softmax(attn_energies, dim=1)
        return torch.bmm(weights.unsqueeze(1), values).squeeze(1), weights
