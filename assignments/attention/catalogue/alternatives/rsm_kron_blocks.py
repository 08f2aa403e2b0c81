"""relative shift matrix assembled block by block with np.kron of unit vectors."""
# item: relative_shift_matrix
import numpy as np


def relative_shift_matrix(k, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    n = d_model // 2
    M = np.zeros((d_model, d_model))
    for i in range(n):
        angle = k / 10000 ** (2 * i / d_model)
        block = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
        unit = np.zeros((n, n))
        unit[i, i] = 1.0
        M += np.kron(unit, block)
    return M
