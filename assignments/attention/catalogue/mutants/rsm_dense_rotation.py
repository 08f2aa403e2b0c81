"""Each rotation's cosines and sines are written along whole rows instead of in small blocks on the diagonal.

relative shift matrix that writes each block's cos and sin along whole rows (not block diagonal)."""
# item: relative_shift_matrix
# loses: block_diagonal_rotations
# says: outside the 2x2 blocks
import numpy as np


def relative_shift_matrix(k, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    M = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        w = 1.0 / 10000 ** (2 * i / d_model)
        c, s = np.cos(w * k), np.sin(w * k)
        M[2 * i, 0::2] = c
        M[2 * i, 1::2] = s
        M[2 * i + 1, 0::2] = -s
        M[2 * i + 1, 1::2] = c
    return M
