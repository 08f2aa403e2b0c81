"""A padding mask filled row by row, one position too far."""
# item: padding_mask
# expect: padding_mask_le
import numpy as np


def padding_mask(lengths, max_len):
    lengths = list(lengths)
    mask = np.zeros((len(lengths), max_len), dtype=bool)
    for b, n in enumerate(lengths):
        mask[b, : int(n) + 1] = True
    return mask
