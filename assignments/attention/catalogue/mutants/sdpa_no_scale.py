"""scaled dot-product attention without the 1/sqrt(d_k) scale."""
# item: scaled_dot_product_attention
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax_last_axis(scores)
    return weights @ V, weights
