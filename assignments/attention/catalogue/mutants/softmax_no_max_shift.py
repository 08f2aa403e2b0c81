"""The maximum is not subtracted before the exponential, so large inputs overflow.

softmax without the max shift: exp overflows (or underflows to 0/0) for inputs of magnitude 1e3."""
# item: softmax
# loses: stable_for_large_inputs
# says: non-finite
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    exp = np.exp(x)
    return exp / np.sum(exp, axis=axis, keepdims=True)
