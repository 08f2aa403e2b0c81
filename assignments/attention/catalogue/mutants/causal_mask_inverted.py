"""The causal mask follows the opposite convention, True where a key is blocked, where here True means may attend.

causal mask with the tutorials' 1 = blocked convention: True above the diagonal."""
# item: causal_mask
# loses: allows_past_and_self
# says: may not attend
import numpy as np


def causal_mask(seq_len):
    return np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)
