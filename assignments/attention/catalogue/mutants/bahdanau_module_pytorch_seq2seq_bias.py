"""The linear layers keep their default bias terms, as in the PyTorch tutorial, which the definition's layers do not have.

The PyTorch seq2seq tutorial's BahdanauAttention with its nn.Linear layers as they are,
with bias: two extra parameters inside the tanh (and one that softmax ignores), which the
contract's W_q, W_k, v (bias=False) do not have."""
# item: BahdanauAttention
# loses: has_required_submodules, forward_matches_definition
# Source: PyTorch tutorial "NLP From Scratch: Translation with a Sequence to Sequence Network
# and Attention" (pytorch/tutorials, intermediate_source/seq2seq_translation_tutorial.py),
# BahdanauAttention: `self.Wa = nn.Linear(hidden_size, hidden_size)` (bias=True by default),
# `self.Ua = ...`, `self.Va = nn.Linear(hidden_size, 1)`. Renamed and sized for the contract,
# the query given its time axis, a mask added; the biases kept.
import torch
import torch.nn.functional as F
from torch import nn


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim)
        self.W_k = nn.Linear(key_dim, attn_dim)
        self.v = nn.Linear(attn_dim, 1)

    def forward(self, query, keys, mask=None):
        scores = self.v(torch.tanh(self.W_q(query.unsqueeze(1)) + self.W_k(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        if mask is not None:
            scores = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context.squeeze(1), weights.squeeze(1)
