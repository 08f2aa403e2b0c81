"""The exponent uses each column's own index instead of its pair's, so the cosine columns get a frequency that is not their sine partner's.

positional encoding with 10000^(j/d_model) for column j: the sine columns are right, each
cosine column uses j = 2i+1 where the formula has 2i."""
# item: positional_encoding
import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    pos = np.arange(max_len)[:, None]
    j = np.arange(d_model)[None, :]
    angles = pos / np.power(10000, j / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe
