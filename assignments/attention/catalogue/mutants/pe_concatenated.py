"""The sines and cosines are laid out as two blocks side by side instead of alternating column by column.

positional encoding laid out as [all sin | all cos] (tensor2tensor style) instead of interleaved."""
# item: positional_encoding
# loses: sin_on_even_cos_on_odd
# says: even columns hold sin
import numpy as np


def positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    angles = np.arange(max_len)[:, None] / 10000 ** (np.arange(0, d_model, 2) / d_model)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
