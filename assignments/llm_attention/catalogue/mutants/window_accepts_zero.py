"""A window below one is accepted instead of raising an error.

No ValueError: a window of 0 gives a mask in which no query may attend anything."""
# item: sliding_window_mask
# loses: rejects_window_below_one
import numpy as np


def sliding_window_mask(seq_len, window):
    i, j = np.arange(seq_len)[:, None], np.arange(seq_len)[None, :]
    return (j <= i) & (j > i - window)
