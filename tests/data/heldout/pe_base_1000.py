"""Positional encoding with the base 1000 instead of 10000: a slip the catalogue does not hold."""
# item: positional_encoding
# expect: none
import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pos = np.arange(max_len)[:, None]
    rates = 1.0 / 1000 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(pos * rates)
    pe[:, 1::2] = np.cos(pos * rates)
    return pe
