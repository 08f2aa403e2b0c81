"""sliding_window_mask with two loops over queries and keys."""
# item: sliding_window_mask
import numpy as np


def sliding_window_mask(seq_len, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    mask = np.zeros((seq_len, seq_len), dtype=bool)
    for i in range(seq_len):
        for j in range(max(0, i - window + 1), i + 1):
            mask[i, j] = True
    return mask
