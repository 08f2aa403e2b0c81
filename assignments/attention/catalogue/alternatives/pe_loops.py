"""positional encoding with the textbook double loop over positions and pairs (math.sin/cos)."""
# item: positional_encoding
import math

import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError("d_model must be even")
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / (10000 ** (i / d_model))  # i is already the even column 2i
            pe[pos, i] = math.sin(angle)
            pe[pos, i + 1] = math.cos(angle)
    return pe
