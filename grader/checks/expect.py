"""The ``expect_*`` helpers: each checks one property and, when it breaks, raises
``CheckFailed`` with a sentence that names the property and the size of the error (shape,
dtype, finiteness, closeness within the tolerance, a reply's shape, a call that must raise),
never the reference's values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..wire import RaisedError
from .base import CheckFailed, Trial, as_array, discrepancy, fmt_index, verb


def expect_shape(arr: np.ndarray, shape: Sequence[int], what: str) -> None:
    if tuple(arr.shape) != tuple(shape):
        raise CheckFailed(f"{what} {verb(what, 'has', 'have')} shape {tuple(arr.shape)}, expected {tuple(shape)}")


def expect_floating(arr: np.ndarray, what: str) -> None:
    if arr.dtype.kind != "f":
        raise CheckFailed(f"{what} has dtype {arr.dtype}, expected a floating-point array")


def expect_bool(arr: np.ndarray, what: str) -> None:
    if arr.dtype != np.bool_:
        raise CheckFailed(f"{what} has dtype {arr.dtype}, expected bool (True = may attend)")


def expect_finite(arr: np.ndarray, what: str) -> None:
    bad = ~np.isfinite(arr)
    if bad.any():
        first = np.argwhere(bad)[0]
        kind = "NaN" if np.isnan(arr[tuple(first)]) else "infinite"
        raise CheckFailed(
            f"{what} has {int(bad.sum())} non-finite entries (the first, at {fmt_index(first)}, is {kind})"
        )


def expect_close(t: Trial, actual: np.ndarray, expected: np.ndarray, what: str, against: str) -> None:
    """``actual`` matches ``expected`` within the tolerance for ``actual``'s dtype.

    ``against`` names what ``expected`` is (the definition, a property); the message gives the
    size of the worst error against its tolerance and where it is, never the expected numbers.
    """
    expected = np.asarray(expected)
    expect_shape(actual, expected.shape, what)
    if actual.dtype.kind not in "fiub":
        raise CheckFailed(f"{what} has dtype {actual.dtype}, expected real numbers")
    off = discrepancy(t, actual, expected)
    if off is not None:
        raise CheckFailed(f"{what} {verb(what, 'differs', 'differ')} from {against}: {off}", off.margin)


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
