"""Each rotation block is transposed, so the matrix shifts the wrong way.

relative shift matrix with the blocks transposed ([[c, -s], [s, c]]): it shifts by -k."""
# item: relative_shift_matrix
# loses: rotation_property
# says: rotation property
import numpy as np


def relative_shift_matrix(k, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    M = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        w = 1.0 / 10000 ** (2 * i / d_model)
        c, s = np.cos(w * k), np.sin(w * k)
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
    return M
