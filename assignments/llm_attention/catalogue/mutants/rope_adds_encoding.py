"""The sinusoidal encoding is added to the features instead of rotating them.

x + PE(p): the first assignment's positional encoding, where RoPE multiplies by a rotation; the
lengths change and the scores depend on absolute positions."""
# item: apply_rotary
# loses: keeps_pair_lengths, relative_positions_only, matches_definition
import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    positions = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    angles = positions[:, None] * base ** (-2.0 * np.arange(d // 2) / d)
    pe = np.empty(angles.shape[:1] + (d,))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return x + pe
