"""The score leaves out the tanh, so it is linear in the query and the keys.

Bahdanau attention without the tanh: the score becomes linear in query and keys."""
# item: bahdanau_attention
# loses: matches_definition
# says: tanh
import numpy as np


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    hidden = (query @ W_q)[:, None, :] + keys @ W_k
    scores = hidden @ v
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax_last_axis(scores)
    context = np.einsum("bj,bjd->bd", weights, keys)
    return context, weights
