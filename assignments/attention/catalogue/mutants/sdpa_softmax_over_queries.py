"""The softmax runs over the queries instead of over the keys.

attention whose softmax runs over the query axis (axis -2) instead of the keys."""
# item: scaled_dot_product_attention
# loses: weight_rows_sum_to_one
# says: not 1
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.swapaxes(_softmax_last_axis(np.swapaxes(scores, -1, -2)), -1, -2)
    return weights @ V, weights
