"""The maximum is not subtracted before the exponential, and the sum runs over the first axis, whatever axis is asked for.

The Stack Overflow question's own softmax: np.exp(x) / np.sum(np.exp(x), axis=0), with no
maximum subtracted (exp overflows to inf for inputs near 1e3: inf / inf = NaN) and the sum
taken over axis 0."""
# item: softmax
# loses: stable_for_large_inputs, rows_sum_to_one
# Source: Stack Overflow, "How to implement the Softmax function in Python" (question 34968722),
# the code in the question: `return np.exp(x) / np.sum(np.exp(x), axis=0)`. The contract's
# signature (an axis argument, unused) is the one change.
import numpy as np


def softmax(x, axis=-1):
    """Compute softmax values for each sets of scores in x."""
    return np.exp(x) / np.sum(np.exp(x), axis=0)
