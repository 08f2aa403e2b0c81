"""A padding mask that marks the padding True (the tutorials' convention), by comparison."""
# item: padding_mask
# expect: padding_mask_inverted
import numpy as np


def padding_mask(lengths, max_len):
    lengths = np.asarray(lengths).reshape(-1, 1)
    return np.arange(max_len).reshape(1, -1) >= lengths
