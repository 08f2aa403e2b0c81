"""sliding_window_mask from two triangles: the lower one, without the keys more than
window - 1 behind (numpy's tril and triu with an offset)."""
# item: sliding_window_mask
import numpy as np


def sliding_window_mask(seq_len, window):
    if window < 1:
        raise ValueError("window must be positive")
    ones = np.ones((seq_len, seq_len), dtype=bool)
    return np.tril(ones) & np.triu(ones, k=-(window - 1))
