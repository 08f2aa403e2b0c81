"""Inputs that checks of many items draw from a trial's seeded rng."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def random_mask(rng: np.random.Generator, shape: Sequence[int]) -> np.ndarray:
    """A random bool mask with at least one True and one False along the last axis (a row
    in which every key is masked is never tested)."""
    shape = tuple(shape)
    mask = rng.random(shape) < 0.6
    n = shape[-1]
    keep = rng.integers(n, size=shape[:-1])
    block = (keep + 1 + rng.integers(n - 1, size=shape[:-1])) % n
    np.put_along_axis(mask, keep[..., None], True, axis=-1)
    np.put_along_axis(mask, block[..., None], False, axis=-1)
    return mask
