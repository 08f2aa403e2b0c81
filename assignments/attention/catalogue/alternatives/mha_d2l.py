"""d2l.ai's MultiHeadAttention: transpose_qkv folds the heads into the batch
(B * H, L, d_k), DotProductAttention with torch.bmm and masked_softmax (masked scores set to
-1e6), transpose_output unfolds them."""
# item: MultiHeadAttention
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers:
# masked_softmax and DotProductAttention (attention-scoring-functions.md), MultiHeadAttention,
# transpose_qkv and transpose_output (multihead-attention.md).
# Changes for the contract: the mask is the contract's bool mask broadcast to (B, H, Lq, Lk)
# (d2l takes valid_lens and builds the same kind of mask in _sequence_mask); nn.Linear(d_model,
# d_model) with bias instead of nn.LazyLinear(num_hiddens, bias=False); no dropout;
# split_heads/combine_heads stop at (B, H, L, d_k) around d2l's (B * H, ...) folding; forward
# returns the weights too, unfolded to (B, H, Lq, Lk).
import math

import torch
from torch import nn


def masked_softmax(X, mask):
    """Perform softmax operation by masking elements on the last axis."""
    if mask is None:
        return nn.functional.softmax(X, dim=-1)
    # On the last axis, replace masked elements with a very large negative
    # value, whose exponentiation outputs 0
    X = X.masked_fill(~mask, -1e6)
    return nn.functional.softmax(X, dim=-1)


class DotProductAttention(nn.Module):
    """Scaled dot product attention."""

    def forward(self, queries, keys, values, mask=None):
        d = queries.shape[-1]
        # Swap the last two dimensions of keys with keys.transpose(1, 2)
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, mask)
        return torch.bmm(self.attention_weights, values)


class MultiHeadAttention(nn.Module):
    """Multi-head attention."""

    def __init__(self, d_model, num_heads):
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        super().__init__()
        self.num_heads = num_heads
        self.attention = DotProductAttention()
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def split_heads(self, X):
        # Shape of output X: (batch_size, no. of queries or key-value pairs, num_heads,
        # num_hiddens / num_heads), then (batch_size, num_heads, ..., num_hiddens / num_heads)
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1)
        return X.permute(0, 2, 1, 3)

    def combine_heads(self, X):
        X = X.permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)

    def transpose_qkv(self, X):
        """Transposition for parallel computation of multiple attention heads."""
        X = self.split_heads(X)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X):
        """Reverse the operation of transpose_qkv."""
        return self.combine_heads(X.reshape(-1, self.num_heads, X.shape[1], X.shape[2]))

    def forward(self, queries, keys, values, mask=None):
        batch, lq, lk = queries.shape[0], queries.shape[1], keys.shape[1]
        queries = self.transpose_qkv(self.W_q(queries))
        keys = self.transpose_qkv(self.W_k(keys))
        values = self.transpose_qkv(self.W_v(values))
        if mask is not None:
            mask = torch.as_tensor(mask, dtype=torch.bool).expand(batch, self.num_heads, lq, lk)
            mask = mask.reshape(batch * self.num_heads, lq, lk)
        output = self.attention(queries, keys, values, mask)
        output_concat = self.transpose_output(output)
        weights = self.attention.attention_weights.reshape(batch, self.num_heads, lq, lk)
        return self.W_o(output_concat), weights
