"""The window reaches forward as well as back: it is not causal.

|i - j| < window: the keys after the query inside the window are allowed too."""
# item: sliding_window_mask
# loses: causal, keys_per_row
import numpy as np


def sliding_window_mask(seq_len, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    i, j = np.arange(seq_len)[:, None], np.arange(seq_len)[None, :]
    return np.abs(i - j) < window
