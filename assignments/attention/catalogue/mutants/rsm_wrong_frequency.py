"""The frequencies use the pair index where the formula doubles it.

relative shift matrix with the frequency 1/10000^(i/d_model) (pair index not doubled)."""
# item: relative_shift_matrix
# loses: rotation_property
# says: rotation property
import numpy as np


def relative_shift_matrix(k, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    M = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        w = 1.0 / 10000 ** (i / d_model)
        c, s = np.cos(w * k), np.sin(w * k)
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
    return M
