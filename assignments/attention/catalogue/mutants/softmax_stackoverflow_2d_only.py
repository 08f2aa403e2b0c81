"""The normalisation only works for two-dimensional input, over its rows, and ignores the axis argument.

The Stack Overflow row-wise softmax for 2-D input: assert len(z.shape) == 2, the row
maxima and sums broadcast back with [:, np.newaxis]. A 1-D or 3-D input fails the assert,
and the axis argument is ignored."""
# item: softmax
# loses: returns_array_of_input_shape, honours_axis
# Source: Stack Overflow, "How to implement the Softmax function in Python" (question 34968722),
# the answer for batches of scores:
#     def softmax(z):
#         assert len(z.shape) == 2
#         s = np.max(z, axis=1)
#         s = s[:, np.newaxis] # necessary step to do broadcasting
#         e_x = np.exp(z - s)
#         div = np.sum(e_x, axis=1)
#         div = div[:, np.newaxis] # dito
#         return e_x / div
# The contract's signature (an axis argument, unused) is the one change.
import numpy as np


def softmax(z, axis=-1):
    assert len(z.shape) == 2
    s = np.max(z, axis=1)
    s = s[:, np.newaxis]  # necessary step to do broadcasting
    e_x = np.exp(z - s)
    div = np.sum(e_x, axis=1)
    div = div[:, np.newaxis]  # dito
    return e_x / div
