"""Positional encoding whose exponent uses each column's own index, not its pair's (2i)."""
# item: positional_encoding
# expect: pe_exponent_column_index
import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError("need an even d_model")
    pos = np.arange(max_len, dtype=np.float64).reshape(-1, 1)
    cols = np.arange(d_model, dtype=np.float64).reshape(1, -1)
    angles = pos / np.power(10000.0, cols / d_model)
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe
