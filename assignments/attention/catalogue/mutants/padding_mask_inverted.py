"""The padding mask follows the opposite convention: True on the padding, where here True means may attend.

padding mask inverted: True on the padding (1 = blocked convention)."""
# item: padding_mask
# loses: true_exactly_before_length
# says: real token
import numpy as np


def padding_mask(lengths, max_len):
    lengths = np.asarray(lengths)
    return np.arange(max_len)[None, :] >= lengths[:, None]
