"""Bahdanau attention with einsum and a -1e9 mask fill."""
# item: bahdanau_attention
import numpy as np


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    hidden = np.tanh(np.einsum("bq,qa->ba", query, W_q)[:, None, :]
                     + np.einsum("bjk,ka->bja", keys, W_k))
    scores = np.einsum("bja,a->bj", hidden, v)
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    return np.einsum("bj,bjk->bk", weights, keys), weights
