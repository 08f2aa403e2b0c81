"""d2l.ai's AdditiveAttention as the contract's BahdanauAttention: queries and keys
projected, added with broadcasting (unsqueeze(2) + unsqueeze(1)), tanh, w_v, masked_softmax
(masked scores set to -1e6), torch.bmm with the values (here the keys)."""
# item: BahdanauAttention
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# attention-scoring-functions.md: masked_softmax and AdditiveAttention.
# Changes for the contract: nn.Linear(dim, attn_dim, bias=False) with the contract's names
# (W_q, W_k, v) instead of LazyLinear W_q, W_k, w_v; one query per batch element (a query
# axis of length 1, squeezed at the end); the values are the keys; the bool mask instead of
# valid_lens; no dropout.
import torch
from torch import nn


def masked_softmax(X, mask):
    """Perform softmax operation by masking elements on the last axis."""
    if mask is None:
        return nn.functional.softmax(X, dim=-1)
    X = X.masked_fill(~mask, -1e6)
    return nn.functional.softmax(X, dim=-1)


class BahdanauAttention(nn.Module):
    """Additive attention."""

    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.W_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, query, keys, mask=None):
        queries, values = query.unsqueeze(1), keys
        queries, keys = self.W_q(queries), self.W_k(keys)
        # After dimension expansion, shape of queries: (batch_size, no. of
        # queries, 1, num_hiddens) and shape of keys: (batch_size, 1, no. of
        # key-value pairs, num_hiddens). Sum them up with broadcasting
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.v(features).squeeze(-1)
        if mask is not None:
            mask = torch.as_tensor(mask, dtype=torch.bool).unsqueeze(1)
        self.attention_weights = masked_softmax(scores, mask)
        context = torch.bmm(self.attention_weights, values)
        return context.squeeze(1), self.attention_weights.squeeze(1)
