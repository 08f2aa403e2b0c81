"""split_heads raising its own subclass of ValueError, and using einops-style transpose."""
# item: split_heads
import numpy as np


class HeadsError(ValueError):
    pass


def split_heads(x, num_heads):
    B, L, d_model = x.shape
    if d_model % num_heads != 0:
        raise HeadsError("d_model must be divisible by num_heads")
    return np.transpose(x.reshape(B, L, num_heads, -1), (0, 2, 1, 3))
