"""The loop that builds the mask never advances its outer counter, so it never returns.

causal mask built with while loops whose outer counter is never advanced: it never returns."""
# item: causal_mask
import numpy as np


def causal_mask(seq_len):
    mask = np.zeros((seq_len, seq_len), dtype=bool)
    i = 0
    while i < seq_len:
        j = 0
        while j <= i:
            mask[i, j] = True
            j += 1
    return mask
