"""Each query sees one key fewer than the window.

i - window + 1 < j <= i: the window counted without the query itself."""
# item: sliding_window_mask
# loses: keys_per_row
import numpy as np


def sliding_window_mask(seq_len, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    i, j = np.arange(seq_len)[:, None], np.arange(seq_len)[None, :]
    return (j <= i) & (j > i - window + 1)
