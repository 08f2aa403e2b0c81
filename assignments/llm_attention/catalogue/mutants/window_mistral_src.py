"""Each query sees one key more than the window: itself and the window's worth of keys before it.

Port of mistral-src's reference mask: a lower triangle made banded with triu(..., diagonal =
-sliding_window), which keeps i - window <= j <= i, window + 1 keys."""
# item: sliding_window_mask
# loses: keys_per_row
# Source: mistralai/mistral-src, one_file_ref.py (Transformer.forward: torch.tril, then torch.triu(mask, diagonal=-self.args.sliding_window))
import numpy as np


def sliding_window_mask(seq_len, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    mask = np.full((seq_len, seq_len), fill_value=1)
    mask = np.tril(mask, k=0)
    mask = np.triu(mask, k=-window)
    return mask.astype(bool)
