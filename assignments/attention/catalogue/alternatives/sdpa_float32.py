"""scaled dot-product attention computed in float32, returning float32 arrays."""
# item: scaled_dot_product_attention
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.float32(np.sqrt(Q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-np.inf))
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
