"""The shift subtracts the mean instead of the maximum, so an entry of minus infinity turns the row into NaN.

softmax shifted by the row mean instead of the max: a -inf entry makes the mean -inf and the row NaN."""
# item: softmax
# loses: neg_inf_gets_zero_weight
# says: -inf
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    shifted = x - np.mean(x, axis=axis, keepdims=True)
    exp = np.exp(shifted)
    return exp / np.sum(exp, axis=axis, keepdims=True)
