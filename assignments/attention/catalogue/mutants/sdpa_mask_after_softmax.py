"""The masked weights are set to zero after the softmax, so the rows no longer sum to one.

attention that zeroes the masked weights after the softmax, without renormalising the rows."""
# item: scaled_dot_product_attention
# loses: weight_rows_sum_to_one
# says: not 1
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    weights = _softmax_last_axis(scores)
    if mask is not None:
        weights = np.where(mask, weights, 0.0)
    return weights @ V, weights
