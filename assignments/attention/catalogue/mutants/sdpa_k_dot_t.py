"""The keys are transposed over all their axes, which is right for a single matrix but wrong once there are batch axes.

attention with K.T: right for 2-D input, wrong once there are leading batch dimensions."""
# item: scaled_dot_product_attention
# loses: leading_batch_dims
# says: raised
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.T / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax_last_axis(scores)
    return weights @ V, weights
