"""A correct causal mask from index comparison (a different source's idiom)."""
# item: causal_mask
# expect: correct
import numpy as np


def causal_mask(seq_len):
    rows = np.arange(seq_len)[:, None]
    return rows >= np.arange(seq_len)[None, :]
