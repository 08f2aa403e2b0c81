"""Failure explanations that checks of many items share: the shape check every item starts
with, and a call that must raise."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..wire import RaisedError
from .base import CheckFailed, as_array, expect_shape


def expect_output(reply: Any, what: str, shape: Sequence[int],
                  *more: Callable[[np.ndarray, str], None]) -> np.ndarray:
    """An item's shape check: ``reply`` is a plain ``numpy.ndarray`` of ``shape`` that passes
    each of ``more`` (``expect_floating``, ``expect_bool``, ...); the array."""
    out = as_array(reply, what, numpy_only=True)
    expect_shape(out, shape, what)
    for expect in more:
        expect(out, what)
    return out


def expect_raises(error: RaisedError | None, kind: str, *, returned: str, other: str) -> None:
    """A call that must raise ``kind`` (``error`` is what it raised, None if it returned).
    ``returned`` is the message when it returned; ``other`` when it raised something else,
    with ``{raised}`` standing for what it raised."""
    if error is None:
        raise CheckFailed(returned)
    if not error.is_a(kind):
        raise CheckFailed(other.replace("{raised}", error.describe()))
