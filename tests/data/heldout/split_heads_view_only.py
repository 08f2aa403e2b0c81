"""split_heads that reshapes to the final shape in one go (no axis moved)."""
# item: split_heads
# expect: split_heads_no_transpose
import numpy as np


def split_heads(x, num_heads):
    *lead, length, d_model = x.shape
    if d_model % num_heads:
        raise ValueError("num_heads must divide d_model")
    return np.reshape(x, (*lead, num_heads, length, d_model // num_heads))
