"""A correct softmax written with moveaxis and a loop over rows (another source's style)."""
# item: softmax
# expect: correct
import numpy as np


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    flat = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    out = np.empty_like(flat)
    for r, row in enumerate(flat):
        top = np.max(row)
        if np.isneginf(top):
            out[r] = np.nan
            continue
        e = np.exp(row - top)
        out[r] = e / e.sum()
    return np.moveaxis(out.reshape(x.shape), -1, axis)
