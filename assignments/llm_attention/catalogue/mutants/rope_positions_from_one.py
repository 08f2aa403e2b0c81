"""The default positions start at one instead of zero.

apply_rotary(x) rotates row p by the angle of position p + 1; given positions are used as they are."""
# item: apply_rotary
# loses: default_positions, position_zero_unchanged, matches_definition
import numpy as np

_Base = apply_rotary


def apply_rotary(x, positions=None, base=10000.0):
    if positions is None:
        positions = np.arange(1, x.shape[-2] + 1)
    return _Base(x, positions, base)
