"""Each pair's frequency uses the pair's index where twice the index belongs.

theta_i = base^(-i/d) with i the pair's index: the angles fall too slowly across the pairs."""
# item: apply_rotary
# loses: matches_definition
import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    positions = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    angles = positions[:, None] * base ** (-1.0 * np.arange(d // 2) / d)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(x.shape)
    out[..., 0::2] = even * np.cos(angles) - odd * np.sin(angles)
    out[..., 1::2] = even * np.sin(angles) + odd * np.cos(angles)
    return out
