"""An inverted causal mask built with np.triu and no k=1: True on and above the diagonal."""
# item: causal_mask
# expect: causal_mask_inverted_with_diagonal
import numpy as np


def causal_mask(seq_len):
    m = np.triu(np.ones((seq_len, seq_len)))
    return m.astype(bool)
