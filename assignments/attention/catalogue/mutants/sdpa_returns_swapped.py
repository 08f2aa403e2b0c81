"""The output and the weights are returned in the wrong order.

attention that returns (weights, output) instead of (output, weights)."""
# item: scaled_dot_product_attention
# loses: output_and_weight_shapes
# says: has shape
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax_last_axis(scores)
    return weights, weights @ V
