"""The causal mask follows the opposite convention, True where a key is blocked, where here True means may attend.

causal mask with the tutorials' 1 = blocked convention: True above the diagonal."""
# item: causal_mask
import numpy as np


def causal_mask(seq_len):
    return np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)
