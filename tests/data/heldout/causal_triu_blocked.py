"""A causal mask in the 1 = blocked convention, built with triu on a bool array."""
# item: causal_mask
# expect: causal_mask_inverted
import numpy as np


def causal_mask(seq_len):
    return np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)
