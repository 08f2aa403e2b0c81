"""The causal mask is off by one: each query may also see the next key.

causal mask off by one the other way (np.tril with k=1): each query also sees the next key."""
# item: causal_mask
# loses: blocks_future
# says: later position
import numpy as np


def causal_mask(seq_len):
    return np.tril(np.ones((seq_len, seq_len), dtype=bool), k=1)
