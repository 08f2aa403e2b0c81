"""Sine and cosine are swapped: cosine on the even columns and sine on the odd ones.

positional encoding with cos on the even columns and sin on the odd ones."""
# item: positional_encoding
# loses: sin_on_even_cos_on_odd
# says: even columns hold sin
import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    angles = np.arange(max_len)[:, None] / 10000 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.cos(angles)
    pe[:, 1::2] = np.sin(angles)
    return pe
