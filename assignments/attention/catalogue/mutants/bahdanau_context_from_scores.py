"""The context is a sum of the keys weighted by the raw scores, not by the attention weights.

Bahdanau attention whose context sums the keys with the raw scores instead of the softmax weights."""
# item: bahdanau_attention
# loses: context_is_weighted_sum_of_keys
# says: your own weights
import numpy as np


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    hidden = np.tanh((query @ W_q)[:, None, :] + keys @ W_k)
    scores = hidden @ v
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax_last_axis(scores)
    raw = np.where(np.isfinite(scores), scores, 0.0)
    context = np.einsum("bj,bjd->bd", raw, keys)
    return context, weights
