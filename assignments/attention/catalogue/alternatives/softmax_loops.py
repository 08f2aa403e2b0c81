"""softmax with explicit Python loops over the slices along axis (math.exp, one entry at a time)."""
# item: softmax
import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    moved = np.moveaxis(x, axis, -1)
    out = np.empty_like(moved)
    for index in np.ndindex(moved.shape[:-1]):
        row = moved[index]
        top = max(row)
        exps = [math.exp(v - top) for v in row]  # math.exp(-inf) is 0.0
        total = sum(exps)
        out[index] = [e / total for e in exps]
    return np.moveaxis(out, -1, axis)
