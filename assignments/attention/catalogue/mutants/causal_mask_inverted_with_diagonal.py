"""The causal mask follows the opposite convention, True where a key is blocked, where here True means may attend.

causal mask from np.triu without k=1: the inverted mask, which also keeps the diagonal (each
query may see itself and every later key, never an earlier one)."""
# item: causal_mask
import numpy as np


def causal_mask(seq_len):
    # upper triangle = the future
    return np.triu(np.ones((seq_len, seq_len))).astype(bool)
