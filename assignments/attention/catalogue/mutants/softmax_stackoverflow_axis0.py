"""The maximum subtracted is that of the whole array and the normalisation runs over the first axis, whatever axis is asked for.

The accepted Stack Overflow softmax: exp(x - max(x)) over the global maximum, normalised
with .sum(axis=0), so a 2-D input is normalised over its columns, not its rows, and the axis
argument is ignored."""
# item: softmax
# loses: rows_sum_to_one, honours_axis
# Source: Stack Overflow, "How to implement the Softmax function in Python" (question 34968722),
# the accepted answer:
#     def softmax(x):
#         """Compute softmax values for each sets of scores in x."""
#         e_x = np.exp(x - np.max(x))
#         return e_x / e_x.sum(axis=0) # only difference
# The contract's signature (an axis argument, unused) is the one change.
import numpy as np


def softmax(x, axis=-1):
    """Compute softmax values for each sets of scores in x."""
    e_x = np.exp(x - np.max(x))
    return e_x / e_x.sum(axis=0)  # only difference
