"""causal mask from np.tril of a boolean matrix of ones."""
# item: causal_mask
import numpy as np


def causal_mask(seq_len):
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))
