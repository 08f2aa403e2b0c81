"""An odd model size is accepted, and the table silently drops the unmatched column, instead of being refused.

positional encoding that "supports" odd d_model by truncating the cos columns instead of raising."""
# item: positional_encoding
# loses: rejects_odd_d_model
# says: returned a result
import numpy as np


def positional_encoding(max_len, d_model):
    div = 10000 ** (np.arange(0, d_model, 2) / d_model)
    angles = np.arange(max_len)[:, None] / div
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
