"""Bahdanau attention one batch element and one key at a time."""
# item: bahdanau_attention
import math

import numpy as np


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    B, Lk, d_k = keys.shape
    context = np.zeros((B, d_k))
    weights = np.zeros((B, Lk))
    for b in range(B):
        projected = query[b] @ W_q
        scores = []
        for j in range(Lk):
            if mask is not None and not mask[b, j]:
                scores.append(-math.inf)
            else:
                scores.append(float(v @ np.tanh(projected + keys[b, j] @ W_k)))
        top = max(scores)
        exps = np.array([math.exp(s - top) for s in scores])
        weights[b] = exps / exps.sum()
        for j in range(Lk):
            context[b] += weights[b, j] * keys[b, j]
    return context, weights
