"""positional encoding with the exp(-log(10000) * 2i/d) trick of the PyTorch tutorial, in float32."""
# item: positional_encoding
import math

import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    position = np.arange(max_len, dtype=np.float32)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2, dtype=np.float32) * np.float32(-math.log(10000.0) / d_model))
    pe = np.zeros((max_len, d_model), dtype=np.float32)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe
