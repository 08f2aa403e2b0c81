"""A causal mask with np.tri shifted one below the diagonal: a query cannot see itself."""
# item: causal_mask
# expect: causal_mask_strict
import numpy as np


def causal_mask(seq_len):
    return np.tri(seq_len, seq_len, k=-1, dtype=bool)
