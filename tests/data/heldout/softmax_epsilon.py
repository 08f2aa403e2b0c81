"""A softmax with an epsilon in the denominator "for safety": a mistake the catalogue does not hold."""
# item: softmax
# expect: none
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / (shifted.sum(axis=axis, keepdims=True) + 1e-3)
