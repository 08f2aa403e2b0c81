"""Reading the arrays a student's function returned, for any bundle's checks: a number for a
message, the first offending index, a value cast to the student's dtype, real numbers, a
returned mask as bool. The only values a message quotes are the student's own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import CheckFailed, as_array
from .expect import expect_shape


def num(value: Any) -> str:
    """A student's value for a message (NaN and inf print as such)."""
    return f"{float(value):.3g}"


def first_true(bad: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(bad)[0])


def in_dtype_of(student: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``value`` (derived from the student's data) cast to the student's float dtype, so that
    ``expect_close`` picks the tolerance the student's precision deserves."""
    return value.astype(student.dtype) if student.dtype.kind == "f" else value


def expect_real(arr: np.ndarray, what: str) -> None:
    if arr.dtype.kind not in "fiub":
        raise CheckFailed(f"{what} has dtype {arr.dtype}, expected real numbers")


def as_mask(value: Any, what: str, shape: Sequence[int]) -> np.ndarray:
    """A returned mask as bool; 0/1 numbers are accepted here (the dtype has its own check)."""
    arr = as_array(value, what)
    expect_shape(arr, shape, what)
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind in "iuf" and np.isin(arr, (0, 1)).all():
        return arr.astype(bool)
    raise CheckFailed(f"{what} holds values other than True/False (True = may attend)")
