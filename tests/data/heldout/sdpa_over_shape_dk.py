"""Attention that divides by the key width itself, read from K's shape."""
# item: scaled_dot_product_attention
# expect: sdpa_divides_by_dk
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / d_k
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= np.sum(weights, axis=-1, keepdims=True)
    return np.matmul(weights, V), weights
