"""The axis argument is ignored: the normalisation always runs over the last axis.

softmax that ignores its axis argument and always normalises over the last axis."""
# item: softmax
# loses: honours_axis
# says: along axis 0
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / np.sum(exp, axis=-1, keepdims=True)
