"""The mask is read with the opposite convention: the positions marked True, which may be attended to, are the ones blocked.

attention reading the mask with the 1 = blocked convention (masks where the mask is True)."""
# item: scaled_dot_product_attention
# loses: masked_weights_are_zero
# says: mask blocks
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -1e9, scores)
    weights = _softmax_last_axis(scores)
    return weights @ V, weights
