"""The scores are not divided by √d_k before the softmax.

scaled dot-product attention without the 1/sqrt(d_k) scale."""
# item: scaled_dot_product_attention
# loses: scaled_by_sqrt_dk
# says: scale is missing
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    # Its own stable softmax: the entry also stands alone as a notebook cell (the sample class).
    exp = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = exp / np.sum(exp, axis=-1, keepdims=True)
    return weights @ V, weights
