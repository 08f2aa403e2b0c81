"""The padding mask is off by one: the first padding position counts as a real token.

padding mask with <= instead of <: the first padding position counts as a real token."""
# item: padding_mask
# loses: true_exactly_before_length
# says: padding position
import numpy as np


def padding_mask(lengths, max_len):
    lengths = np.asarray(lengths)
    return np.arange(max_len)[None, :] <= lengths[:, None]
