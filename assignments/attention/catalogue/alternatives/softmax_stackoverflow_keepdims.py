"""The Stack Overflow softmax that handles any axis: x - x.max(axis, keepdims=True), exp, and
the sum over the same axis with keepdims."""
# item: softmax
# Source: Stack Overflow, "How to implement the Softmax function in Python" (question 34968722),
# the answer generalising to an axis argument:
#     def softmax(x, axis=None):
#         x = x - x.max(axis=axis, keepdims=True)
#         y = np.exp(x)
#         return y / y.sum(axis=axis, keepdims=True)
# The one change: the contract's default axis=-1 instead of None (None normalises over the
# whole array).
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    y = np.exp(x)
    return y / y.sum(axis=axis, keepdims=True)
