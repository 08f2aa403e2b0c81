"""A model size that the number of heads does not divide is refused with an assertion rather than a ValueError.

split_heads that checks divisibility with assert: AssertionError instead of ValueError."""
# item: split_heads
# loses: rejects_indivisible_d_model
# says: AssertionError
import numpy as np


def split_heads(x, num_heads):
    B, L, d_model = x.shape
    assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
    return x.reshape(B, L, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)
