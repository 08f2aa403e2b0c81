"""The scores are divided by d_k instead of by √d_k.

scaled dot-product attention that divides the scores by d_k instead of sqrt(d_k)."""
# item: scaled_dot_product_attention
# loses: scaled_by_sqrt_dk
# says: not by d_k
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / Q.shape[-1]
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax_last_axis(scores)
    return weights @ V, weights
