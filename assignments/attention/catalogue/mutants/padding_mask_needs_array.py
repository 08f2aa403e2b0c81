"""The padding mask works for an array of lengths but not for a plain list.

padding mask that indexes lengths[:, None] directly: correct for arrays, TypeError for a list."""
# item: padding_mask
# loses: accepts_list_and_array
# says: raised TypeError
import numpy as np


def padding_mask(lengths, max_len):
    return np.arange(max_len)[None, :] < lengths[:, None]
