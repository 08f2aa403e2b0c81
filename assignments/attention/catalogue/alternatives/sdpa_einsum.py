"""scaled dot-product attention with einsum over any number of leading batch dimensions."""
# item: scaled_dot_product_attention
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("...qk,...kv->...qv", weights, V), weights
