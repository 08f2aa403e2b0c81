"""Positional encoding filled with loops, cos on the even columns."""
# item: positional_encoding
# expect: pe_sin_cos_swapped
import math

import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / math.pow(10000, i / d_model)
            pe[pos, i] = math.cos(angle)
            pe[pos, i + 1] = math.sin(angle)
    return pe
