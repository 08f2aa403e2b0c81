"""The causal mask is off by one: a query may not attend to its own position.

causal mask off by one: a strict triangle (j < i), so a query may not attend to itself."""
# item: causal_mask
# loses: allows_past_and_self
# says: itself
import numpy as np


def causal_mask(seq_len):
    return np.tril(np.ones((seq_len, seq_len), dtype=bool), k=-1)
