"""The shift subtracts the maximum of the whole array instead of each row's own, so a row far below the others underflows.

softmax shifted by the maximum of the whole array: a row far below the others underflows to 0/0."""
# item: softmax
# loses: stable_for_large_inputs
# says: non-finite
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    exp = np.exp(x - np.max(x))
    return exp / np.sum(exp, axis=axis, keepdims=True)
