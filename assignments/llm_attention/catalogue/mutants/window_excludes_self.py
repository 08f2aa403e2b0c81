"""Each query sees the keys before it but not itself.

i - window <= j < i: the window shifted one key back, so the diagonal is blocked."""
# item: sliding_window_mask
# loses: keys_per_row
import numpy as np


def sliding_window_mask(seq_len, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    i, j = np.arange(seq_len)[:, None], np.arange(seq_len)[None, :]
    return (j < i) & (j >= i - window)
