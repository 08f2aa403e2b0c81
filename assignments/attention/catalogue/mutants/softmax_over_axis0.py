"""The normalisation always runs over the first axis, whatever axis is asked for.

softmax over the wrong axis: always axis 0 (the batch axis), whatever axis says."""
# item: softmax
# loses: rows_sum_to_one
# says: not 1
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    shifted = x - np.max(x, axis=0, keepdims=True)
    exp = np.exp(shifted)
    return exp / np.sum(exp, axis=0, keepdims=True)
