"""The causal mask has the right pattern but holds numbers instead of booleans.

causal mask of the right pattern returned as float 0/1 (np.tril(np.ones(...))) instead of bool."""
# item: causal_mask
# loses: bool_square_shape
# says: expected bool
import numpy as np


def causal_mask(seq_len):
    return np.tril(np.ones((seq_len, seq_len)))
