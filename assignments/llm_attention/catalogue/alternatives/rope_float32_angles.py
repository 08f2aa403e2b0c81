"""apply_rotary with its angles in float32, the frequencies as exp(-2i/d ln base): what a
torch port with the default dtype computes (the tolerance's case)."""
# item: apply_rotary
import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    positions = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    freqs = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-np.log(base) / d))
    angles = positions.astype(np.float32)[:, None] * freqs[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(x.shape)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out
