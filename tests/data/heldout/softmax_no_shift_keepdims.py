"""A student's softmax with keepdims and no shift (not the catalogue's code)."""
# item: softmax
# expect: softmax_no_max_shift
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    numerator = np.exp(x)
    denominator = np.sum(numerator, axis=axis, keepdims=True)
    return numerator / denominator
