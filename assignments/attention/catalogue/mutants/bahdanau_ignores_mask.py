"""The mask is taken but never applied, so blocked keys still receive weight.

Bahdanau attention that accepts a mask and never applies it."""
# item: bahdanau_attention
# loses: masked_keys_get_zero_weight
# says: mask blocks
import numpy as np


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    hidden = np.tanh((query @ W_q)[:, None, :] + keys @ W_k)
    weights = _softmax_last_axis(hidden @ v)
    context = np.einsum("bj,bjd->bd", weights, keys)
    return context, weights
