"""``softmax`` (part 1): its public example and its hidden checks (see ``numpy_support`` for
what every NumPy check does)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, as_array, discrepancy, fmt_index
from grader.checks.expect import expect_close, expect_finite, expect_floating, expect_output, expect_shape
from grader.checks.inputs import random_mask
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY, check
from .example_support import student_reply
from .numpy_support import expect_real, expect_sums_to_one, first_true, in_dtype_of, num


@REGISTRY.example("softmax")
def softmax_example(t: Trial) -> Sequence[Picture]:
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    return [picture(t, "softmax([[1, 2, 3], [0, 0, 0]])", "weights", t.reference(ref.softmax, x),
                    lambda: student_reply(t, x))]  # rows and columns as the array's


@check("softmax", "returns_array_of_input_shape")
def softmax_shape(t: Trial) -> None:
    shapes = [(1,), (7,), (3, 5), (2, 3, 4), (2, 1, 3, 2)]
    xs = [t.rng.normal(size=shape) for shape in shapes]
    for shape, reply in zip(shapes, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"softmax(x) for x of shape {shape}"
        expect_output(reply, what, shape, expect_floating)


@check("softmax", "matches_definition")
def softmax_definition(t: Trial) -> None:
    shapes = [(6,), (5, 8), (2, 3, 4)]
    xs = [t.rng.normal(scale=2.0, size=shape) for shape in shapes]
    for shape, x, reply in zip(shapes, xs, t.call_each([Args(x) for x in xs]), strict=True):
        expected = t.reference(ref.softmax, x)
        what = f"softmax(x) for x of shape {shape}"
        out = as_array(reply, what)
        expect_close(t, out, expected, what, "the definition exp(x) / sum(exp(x)) over the last axis")


@check("softmax", "rows_sum_to_one")
def softmax_rows_sum(t: Trial) -> None:
    shapes = [(9,), (6, 9), (4, 3, 9)]
    xs = [t.rng.normal(scale=3.0, size=shape) for shape in shapes]
    for shape, reply in zip(shapes, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"softmax(x) for x of shape {shape}"
        out = as_array(reply, what)
        expect_shape(out, shape, what)
        expect_sums_to_one(t, out, what)


@check("softmax", "invariant_to_added_constant")
def softmax_shift_invariance(t: Trial) -> None:
    """softmax(x + c) = softmax(x) when c is the same along a row. The constants are
    moderate (|c| <= 30), so an implementation without the max shift still passes here:
    overflow is the business of ``stable_for_large_inputs``."""
    shapes = [(8,), (5, 7), (2, 3, 6)]
    calls = []
    for shape in shapes:
        x = t.rng.normal(size=shape)
        c = t.rng.uniform(-30.0, 30.0, size=shape[:-1] + (1,))
        calls += [Args(x), Args(x + c)]
    replies = t.call_each(calls)
    for shape in shapes:
        plain = as_array(next(replies), f"softmax(x) for x of shape {shape}")
        expect_shape(plain, shape, f"softmax(x) for x of shape {shape}")
        expect_finite(plain, f"softmax(x) for x of shape {shape}")
        shifted = as_array(next(replies), f"softmax(x + c) for x of shape {shape}")
        expect_close(t, shifted, in_dtype_of(shifted, plain.astype(np.float64)),
                     f"softmax(x + c) for x of shape {shape} and c constant along each row",
                     "softmax(x) (adding the same constant to every entry of a row must not "
                     "change that row's softmax)")


@check("softmax", "stable_for_large_inputs")
def softmax_large(t: Trial) -> None:
    """Near +-1e3, exp overflows or underflows unless each row's maximum is subtracted first.
    No reference is needed: softmax(x) must equal the student's own softmax(x - m), m each
    row's maximum, whose inputs are at most 0 (their values are matches_definition's business)."""
    rng = t.rng
    far_row = rng.normal(scale=2.0, size=(4, 6))
    far_row[1] -= 1000.0
    cases = [
        ("x near +1e3", 1000.0 + rng.normal(scale=2.0, size=(3, 7))),
        ("x near -1e3", -1000.0 + rng.normal(scale=2.0, size=(3, 7))),
        ("x with entries near +1e3 and -1e3 in the same row",
         1000.0 * rng.choice([-1.0, 1.0], size=(2, 8)) + rng.normal(size=(2, 8))),
        ("x whose row [1] lies near -1e3 while the other rows lie near 0", far_row),
    ]
    calls = []
    for _, x in cases:
        calls += [Args(x), Args(x - x.max(axis=-1, keepdims=True))]
    replies = t.call_each(calls)
    for label, x in cases:
        what = f"softmax(x) for {label}"
        out = as_array(next(replies), what)
        expect_shape(out, x.shape, what)
        expect_finite(out, what + " (subtract each row's own maximum before exp)")
        shifted = as_array(next(replies), f"softmax(x - m) for {label}")
        expect_shape(shifted, x.shape, f"softmax(x - m) for {label}")
        expect_close(t, out, in_dtype_of(out, shifted.astype(np.float64)), what,
                     "softmax(x - m), m each row's maximum (adding the same constant to every entry "
                     "of a row must not change that row's softmax)")


@check("softmax", "honours_axis")
def softmax_axis(t: Trial) -> None:
    """softmax(x, axis=a) normalises along axis a: its slices along a sum to 1, and it equals
    the student's own softmax along the last axis of x with axis a moved last."""
    cases = [((4, 5), 0), ((2, 3, 4), 1), ((3, 4, 2), 0), ((3, 4, 5), -2)]
    xs = [t.rng.normal(scale=2.0, size=shape) for shape, _ in cases]
    calls = []
    for x, (_, axis) in zip(xs, cases, strict=True):
        calls += [Args(x, axis=axis), Args(np.ascontiguousarray(np.moveaxis(x, axis, -1)))]
    replies = t.call_each(calls)
    for (shape, axis), x in zip(cases, xs, strict=True):
        what = f"softmax(x, axis={axis}) for x of shape {shape}"
        out = as_array(next(replies), what)
        expect_shape(out, shape, what)
        expect_real(out, what)
        sums = np.asarray(out, dtype=np.float64).sum(axis=axis)
        off = discrepancy(t, sums, np.ones_like(sums), dtype=out.dtype)
        if off is not None:
            raise CheckFailed(f"the slices of {what} along axis {axis} do not sum to 1 (the one "
                              f"at {fmt_index(off.index)} sums to {num(sums[off.index])}: off by "
                              f"{off.error:.1e}, tolerance {off.tolerance:.1e}): normalise along "
                              f"the given axis", off.margin)
        moved = np.moveaxis(x, axis, -1)
        last = as_array(next(replies), f"softmax(y) for y of shape {moved.shape}")
        expect_shape(last, moved.shape, f"softmax(y) for y of shape {moved.shape}")
        expect_close(t, out, in_dtype_of(out, np.moveaxis(last.astype(np.float64), -1, axis)), what,
                     f"softmax(y) with y = x with axis {axis} moved last, moved back (the softmax "
                     f"along axis {axis})")


@check("softmax", "neg_inf_gets_zero_weight")
def softmax_neg_inf(t: Trial) -> None:
    """A -inf entry gets weight exactly 0, and the rest of its row is the softmax of the finite
    entries: the student's own softmax with each -inf replaced by a number 100 below the
    row's smallest finite entry (whose weight, under e^-100, is 0 within any tolerance)."""
    cases = []
    for shape in [(6,), (4, 7), (2, 3, 5)]:
        x = t.rng.normal(scale=2.0, size=shape)
        blocked = ~random_mask(t.rng, shape)  # at least one -inf and one finite entry per row
        x[blocked] = -np.inf
        cases.append((x, blocked))
    calls = []
    for x, blocked in cases:
        low = np.where(blocked, np.inf, x).min(axis=-1, keepdims=True) - 100.0
        calls += [Args(x), Args(np.where(blocked, low, x))]
    replies = t.call_each(calls)
    for x, blocked in cases:
        shape = x.shape
        what = f"softmax(x) for x of shape {shape} with -inf entries"
        out = as_array(next(replies), what)
        expect_shape(out, shape, what)
        expect_real(out, what)
        bad = blocked & (out != 0)
        if bad.any():
            first = first_true(bad)
            raise CheckFailed(f"entry {fmt_index(first)} of {what} is {num(out[first])} although "
                              f"x there is -inf; a -inf entry must get weight exactly 0")
        expect_finite(out, what)
        finite = as_array(next(replies), f"softmax(x) for x of shape {shape} with each -inf replaced")
        expect_shape(finite, shape, f"softmax(x) for x of shape {shape} with each -inf replaced")
        expect_close(t, out, in_dtype_of(out, finite.astype(np.float64)), what,
                     "the softmax over the finite entries of each row (your softmax of x with each "
                     "-inf replaced by a number far below the row's other entries)")
