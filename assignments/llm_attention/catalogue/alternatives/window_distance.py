"""sliding_window_mask from the distance i - j, in [0, window)."""
# item: sliding_window_mask
import numpy as np


def sliding_window_mask(seq_len, window):
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    distance = np.subtract.outer(np.arange(seq_len), np.arange(seq_len))
    return (distance >= 0) & (distance < window)
