"""The exponent doubles a column index that already steps by two, so the frequencies are wrong.

positional encoding with the 2*i slip: i already steps by 2 over the columns, and is doubled again."""
# item: positional_encoding
# loses: matches_formula
# says: 10000^(2i/d_model)
import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    pe = np.zeros((max_len, d_model))
    positions = np.arange(max_len)[:, None]
    for i in range(0, d_model, 2):
        angle = positions[:, 0] / 10000 ** (2 * i / d_model)
        pe[:, i] = np.sin(angle)
        pe[:, i + 1] = np.cos(angle)
    return pe
