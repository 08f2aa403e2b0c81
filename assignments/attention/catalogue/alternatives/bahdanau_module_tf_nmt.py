"""The TensorFlow NMT tutorial's BahdanauAttention as a torch module: scores of shape
(B, Lk, 1), softmax over dim 1, the context as the sum over dim 1 of weights * values."""
# item: BahdanauAttention
# Source: TensorFlow tutorial "Neural machine translation with attention"
# (tensorflow/docs, site/en/tutorials/text/nmt_with_attention.ipynb), BahdanauAttention.
# Changes for the contract: W1, W2, V (Dense, with bias) are W_q, W_k, v (Linear, bias=False);
# a mask (the tutorial has none); the weights returned as (B, Lk).
import torch
from torch import nn


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.W_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, query, values, mask=None):
        # query hidden state shape == (batch_size, hidden size)
        # query_with_time_axis shape == (batch_size, 1, hidden size)
        query_with_time_axis = query.unsqueeze(1)
        # score shape == (batch_size, max_length, 1)
        score = self.v(torch.tanh(self.W_q(query_with_time_axis) + self.W_k(values)))
        if mask is not None:
            score = score.masked_fill(~mask.unsqueeze(-1), float("-inf"))
        # attention_weights shape == (batch_size, max_length, 1)
        attention_weights = torch.softmax(score, dim=1)
        # context_vector shape after sum == (batch_size, hidden_size)
        context_vector = torch.sum(attention_weights * values, dim=1)
        return context_vector, attention_weights.squeeze(-1)
