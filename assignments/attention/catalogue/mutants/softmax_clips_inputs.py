"""The inputs are clipped before the exponential, so minus infinity no longer gives a weight of exactly zero.

softmax that clips its input to [-30, 30] "for stability": -inf entries get a tiny positive weight."""
# item: softmax
# loses: neg_inf_gets_zero_weight
# says: exactly 0
import numpy as np


def softmax(x, axis=-1):
    x = np.clip(np.asarray(x), -30.0, None)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exp = np.exp(shifted)
    return exp / np.sum(exp, axis=axis, keepdims=True)
