"""The PyTorch seq2seq tutorial's BahdanauAttention: Va(tanh(Wa(query) + Ua(keys))),
squeeze(2).unsqueeze(1), softmax, torch.bmm(weights, keys)."""
# item: BahdanauAttention
# Source: PyTorch tutorial "NLP From Scratch: Translation with a Sequence to Sequence Network
# and Attention" (pytorch/tutorials, intermediate_source/seq2seq_translation_tutorial.py),
# BahdanauAttention. Changes for the contract: Wa, Ua, Va are W_q, W_k, v with the contract's
# dimensions and bias=False (the tutorial's have bias: see the mutant
# bahdanau_module_pytorch_seq2seq_bias); the query has no time axis (unsqueeze(1) here); a mask
# (the tutorial has none); context and weights returned without the query axis.
import torch
import torch.nn.functional as F
from torch import nn


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.W_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, query, keys, mask=None):
        scores = self.v(torch.tanh(self.W_q(query.unsqueeze(1)) + self.W_k(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        if mask is not None:
            scores = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context.squeeze(1), weights.squeeze(1)
