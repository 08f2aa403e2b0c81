"""padding mask built row by row with Python loops, from any sequence of lengths."""
# item: padding_mask
import numpy as np


def padding_mask(lengths, max_len):
    rows = [[j < int(n) for j in range(max_len)] for n in lengths]
    return np.array(rows, dtype=bool).reshape(len(rows), max_len)
