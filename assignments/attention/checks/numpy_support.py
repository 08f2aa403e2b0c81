"""What the NumPy checks (part 1) share: reading what a function returned (masks, pairs,
sums) and drawing attention inputs.

Every NumPy check draws its inputs from ``t.rng``, calls the student's function through
``t.call_each`` and, when something is wrong, says which property broke. Comparisons with the
reference go through ``expect_close`` (which never prints the reference's numbers); the
only values a message quotes are the student's own.

``t.reference`` memoises by call number, so every check makes its reference calls (and
its ``t.rng`` draws) in a fixed order that never depends on what the student returned.
The shape check of each item insists on a plain ``numpy.ndarray``; the other checks
accept anything array-like, so that returning a list or a tensor costs one check only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# The engine's, for any bundle; imported from here by the part-1 checks, as before.
from grader.checks.arrays import as_mask as as_mask
from grader.checks.arrays import expect_real as expect_real
from grader.checks.arrays import first_true as first_true
from grader.checks.arrays import in_dtype_of as in_dtype_of
from grader.checks.arrays import num as num
from grader.checks.base import Args, CheckFailed, Trial, as_array, as_pair, discrepancy, fmt_index
from grader.checks.expect import expect_shape


def expect_no_masked_out_row(weights: np.ndarray, mask: np.ndarray, what: str) -> None:
    """A row of weights that is all NaN is a softmax over keys that were all blocked (every score
    -inf), although ``mask`` allows some of them: said so, not as "the entry is NaN"."""
    if weights.dtype.kind != "f" or weights.ndim < 1:
        return
    rows = np.isnan(weights).all(axis=-1) & np.broadcast_to(mask, weights.shape).any(axis=-1)
    if rows.any():
        row = ", ".join(str(i) for i in first_true(rows))
        raise CheckFailed(f"{what} are NaN in row {row}, a row where every key is masked although "
                          "the mask allows some: the mask blocks what it should allow (True means may attend)")


def expect_sums_to_one(t: Trial, arr: np.ndarray, what: str, axis: int = -1,
                       slices: str = "row") -> None:
    expect_real(arr, what)
    sums = np.asarray(arr, dtype=np.float64).sum(axis=axis)
    off = discrepancy(t, sums, np.ones_like(sums), dtype=arr.dtype)
    if off is None:
        return
    size = f"off by {off.error:.1e}, tolerance {off.tolerance:.1e}"
    if sums.ndim == 0:
        raise CheckFailed(f"{what} sums to {num(sums)}, not 1 ({size})", off.margin)
    raise CheckFailed(f"{slices} {fmt_index(off.index)} of {what} sums to {num(sums[off.index])}, "
                      f"not 1 ({size})", off.margin)


def mask_text(mask: np.ndarray | None) -> str:
    return "" if mask is None else f", mask {mask.shape}"


def batch_where(index: tuple[int, ...], batch_dims: int) -> str:
    return f" of batch element {fmt_index(index[:batch_dims])}" if batch_dims else ""


def draw_qkv(rng: np.random.Generator, batch: tuple[int, ...], lq: int, lk: int, dk: int, dv: int,
         scale: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (rng.normal(scale=scale, size=batch + (lq, dk)),
            rng.normal(scale=scale, size=batch + (lk, dk)),
            rng.normal(size=batch + (lk, dv)))


def describe_shapes(*arrays: np.ndarray, names: str = "QKV") -> str:
    return ", ".join(f"{n} {tuple(a.shape)}" for n, a in zip(names, arrays, strict=False))


def attention_pair(reply: Any, what: str, *, numpy_only: bool = False,
               first: str = "output") -> tuple[np.ndarray, np.ndarray]:
    out, weights = as_pair(reply, what)
    return (as_array(out, f"the {first} of {what}", numpy_only=numpy_only),
            as_array(weights, f"the weights of {what}", numpy_only=numpy_only))


def expect_outputs(reply: Any, what: str, shapes: tuple[Sequence[int], Sequence[int]],
                    first: str = "output") -> None:
    """The shape check of a function that returns ``(first, weights)``: two plain arrays."""
    out, weights = attention_pair(reply, what, numpy_only=True, first=first)
    expect_shape(out, shapes[0], f"the {first} of {what}")
    expect_shape(weights, shapes[1], f"the weights of {what}")


def masked_args(args: Sequence[Any], mask: np.ndarray | None) -> Args:
    return Args(*args) if mask is None else Args(*args, mask=mask)
