"""apply_rotary with Python loops over rows and pairs, and math.cos and math.sin."""
# item: apply_rotary
import math

import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    x = np.asarray(x, dtype=float)
    L, d = x.shape[-2], x.shape[-1]
    if d % 2 != 0:
        raise ValueError("odd feature size")
    if positions is None:
        positions = list(range(L))
    out = np.array(x)
    for index in np.ndindex(*x.shape[:-1]):
        p = positions[index[-1]]
        for i in range(d // 2):
            a = p * base ** (-2 * i / d)
            u, v = x[index][2 * i], x[index][2 * i + 1]
            out[index][2 * i] = u * math.cos(a) - v * math.sin(a)
            out[index][2 * i + 1] = u * math.sin(a) + v * math.cos(a)
    return out
