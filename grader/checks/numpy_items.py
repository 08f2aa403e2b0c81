"""Hidden checks for part 1 (NumPy functions).

Each check draws its inputs from ``t.rng``, calls the student's function through
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

from reference import attention_numpy as ref

from . import check
from .base import (
    Args,
    CheckFailed,
    Trial,
    as_array,
    as_pair,
    close_mask,
    discrepancy,
    expect_bool,
    expect_close,
    expect_finite,
    expect_floating,
    expect_shape,
    fmt_index,
)

# ---- helpers ---------------------------------------------------------------------------


def _num(value: Any) -> str:
    """A student's value for a message (NaN and inf print as such)."""
    return f"{float(value):.3g}"


def _first(bad: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _in_dtype_of(student: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``value`` (derived from the student's data) cast to the student's float dtype, so that
    ``expect_close`` picks the tolerance the student's precision deserves."""
    return value.astype(student.dtype) if student.dtype.kind == "f" else value


def _expect_real(arr: np.ndarray, what: str) -> None:
    if arr.dtype.kind not in "fiub":
        raise CheckFailed(f"{what} has dtype {arr.dtype}, expected real numbers")


def _expect_sums_to_one(t: Trial, arr: np.ndarray, what: str, axis: int = -1, slices: str = "row") -> None:
    _expect_real(arr, what)
    sums = np.asarray(arr, dtype=np.float64).sum(axis=axis)
    off = discrepancy(t, sums, np.ones_like(sums), dtype=arr.dtype)
    if off is None:
        return
    size = f"off by {off.error:.1e}, tolerance {off.tolerance:.1e}"
    if sums.ndim == 0:
        raise CheckFailed(f"{what} sums to {_num(sums)}, not 1 ({size})", off.margin)
    raise CheckFailed(f"{slices} {fmt_index(off.index)} of {what} sums to {_num(sums[off.index])}, "
                      f"not 1 ({size})", off.margin)


def _as_mask(value: Any, what: str, shape: Sequence[int]) -> np.ndarray:
    """A returned mask as bool; 0/1 numbers are accepted here (the dtype has its own check)."""
    arr = as_array(value, what)
    expect_shape(arr, shape, what)
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind in "iuf" and np.isin(arr, (0, 1)).all():
        return arr.astype(bool)
    raise CheckFailed(f"{what} holds values other than True/False (True = may attend)")


def _random_mask(rng: np.random.Generator, shape: Sequence[int]) -> np.ndarray:
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


def _mask_text(mask: np.ndarray | None) -> str:
    return "" if mask is None else f", mask {mask.shape}"


def _where(index: tuple[int, ...], batch_dims: int) -> str:
    return f" of batch element {fmt_index(index[:batch_dims])}" if batch_dims else ""


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    shifted = scores - scores.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)


# ---- softmax ---------------------------------------------------------------------------


@check("softmax", "returns_array_of_input_shape")
def softmax_shape(t: Trial) -> None:
    shapes = [(1,), (7,), (3, 5), (2, 3, 4), (2, 1, 3, 2)]
    xs = [t.rng.normal(size=shape) for shape in shapes]
    for shape, reply in zip(shapes, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"softmax(x) for x of shape {shape}"
        out = as_array(reply, what, numpy_only=True)
        expect_shape(out, shape, what)
        expect_floating(out, what)


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
        _expect_sums_to_one(t, out, what)


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
        expect_close(t, shifted, _in_dtype_of(shifted, plain.astype(np.float64)),
                     f"softmax(x + c) for x of shape {shape} and c constant along each row",
                     "softmax(x) (adding the same constant to every entry of a row must not "
                     "change that row's softmax)")


@check("softmax", "stable_for_large_inputs")
def softmax_large(t: Trial) -> None:
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
    for (label, x), reply in zip(cases, t.call_each([Args(x) for _, x in cases]), strict=True):
        expected = t.reference(ref.softmax, x)
        what = f"softmax(x) for {label}"
        out = as_array(reply, what)
        expect_shape(out, x.shape, what)
        expect_finite(out, what + " (subtract each row's own maximum before exp)")
        expect_close(t, out, expected, what, "the softmax of x")


@check("softmax", "honours_axis")
def softmax_axis(t: Trial) -> None:
    cases = [((4, 5), 0), ((2, 3, 4), 1), ((3, 4, 2), 0), ((3, 4, 5), -2)]
    xs = [t.rng.normal(scale=2.0, size=shape) for shape, _ in cases]
    replies = t.call_each([Args(x, axis=axis) for x, (_, axis) in zip(xs, cases, strict=True)])
    for (shape, axis), x, reply in zip(cases, xs, replies, strict=True):
        expected = t.reference(ref.softmax, x, axis=axis)
        what = f"softmax(x, axis={axis}) for x of shape {shape}"
        out = as_array(reply, what)
        expect_shape(out, shape, what)
        _expect_real(out, what)
        sums = np.asarray(out, dtype=np.float64).sum(axis=axis)
        off = discrepancy(t, sums, np.ones_like(sums), dtype=out.dtype)
        if off is not None:
            raise CheckFailed(f"the slices of {what} along axis {axis} do not sum to 1 (the one "
                              f"at {fmt_index(off.index)} sums to {_num(sums[off.index])}: off by "
                              f"{off.error:.1e}, tolerance {off.tolerance:.1e}): normalise along "
                              f"the given axis", off.margin)
        expect_close(t, out, expected, what, f"the softmax along axis {axis}")


@check("softmax", "neg_inf_gets_zero_weight")
def softmax_neg_inf(t: Trial) -> None:
    cases = []
    for shape in [(6,), (4, 7), (2, 3, 5)]:
        x = t.rng.normal(scale=2.0, size=shape)
        blocked = ~_random_mask(t.rng, shape)  # at least one -inf and one finite entry per row
        x[blocked] = -np.inf
        cases.append((x, blocked))
    for (x, blocked), reply in zip(cases, t.call_each([Args(x) for x, _ in cases]), strict=True):
        shape = x.shape
        expected = t.reference(ref.softmax, x)
        what = f"softmax(x) for x of shape {shape} with -inf entries"
        out = as_array(reply, what)
        expect_shape(out, shape, what)
        _expect_real(out, what)
        bad = blocked & (out != 0)
        if bad.any():
            first = _first(bad)
            raise CheckFailed(f"entry {fmt_index(first)} of {what} is {_num(out[first])} although "
                              f"x there is -inf; a -inf entry must get weight exactly 0")
        expect_finite(out, what)
        expect_close(t, out, expected, what, "the softmax over the finite entries of each row")


# ---- causal_mask -----------------------------------------------------------------------


def _mask_sizes(t: Trial) -> list[int]:
    return [1, 2, 5, int(t.rng.integers(6, 11))]


@check("causal_mask", "bool_square_shape")
def causal_shape(t: Trial) -> None:
    sizes = _mask_sizes(t)
    for n, reply in zip(sizes, t.call_each([Args(n) for n in sizes]), strict=True):
        what = f"causal_mask({n})"
        out = as_array(reply, what, numpy_only=True)
        expect_shape(out, (n, n), what)
        expect_bool(out, what)


@check("causal_mask", "allows_past_and_self")
def causal_past(t: Trial) -> None:
    sizes = _mask_sizes(t)
    for n, reply in zip(sizes, t.call_each([Args(n) for n in sizes]), strict=True):
        what = f"causal_mask({n})"
        mask = _as_mask(reply, what, (n, n))
        allowed = np.tri(n, dtype=bool)
        bad = allowed & ~mask
        if bad.any():
            i, j = _first(bad)
            whom = "itself" if i == j else f"key {j}, an earlier position"
            raise CheckFailed(f"in {what}, query {i} may not attend to {whom}; True means 'may "
                              f"attend' and must hold for every key j <= i")


@check("causal_mask", "blocks_future")
def causal_future(t: Trial) -> None:
    sizes = _mask_sizes(t)
    for n, reply in zip(sizes, t.call_each([Args(n) for n in sizes]), strict=True):
        what = f"causal_mask({n})"
        mask = _as_mask(reply, what, (n, n))
        bad = ~np.tri(n, dtype=bool) & mask
        if bad.any():
            i, j = _first(bad)
            raise CheckFailed(f"in {what}, query {i} may attend to key {j}, a later position; "
                              f"every key j > i must be blocked (False)")


# ---- padding_mask ----------------------------------------------------------------------


def _padding_cases(t: Trial) -> list[tuple[list[int], int]]:
    max_len = int(t.rng.integers(6, 10))
    lengths = [int(n) for n in t.rng.integers(1, max_len + 1, size=3)]
    return [([3, 1, 5, 2], 5), ([1], 1), ([4, 4], 4), ([1, 7], 7),
            (lengths + [max_len - 1], max_len)]


@check("padding_mask", "bool_batch_by_max_len")
def padding_shape(t: Trial) -> None:
    cases = _padding_cases(t)
    replies = t.call_each([Args(np.array(lengths), max_len) for lengths, max_len in cases])
    for (lengths, max_len), reply in zip(cases, replies, strict=True):
        what = f"padding_mask({lengths}, {max_len})"
        out = as_array(reply, what, numpy_only=True)
        expect_shape(out, (len(lengths), max_len), what)
        expect_bool(out, what)


def _check_padding(mask: np.ndarray, lengths: Sequence[int], max_len: int, what: str) -> None:
    real = np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]
    missing = real & ~mask
    if missing.any():
        b, j = _first(missing)
        raise CheckFailed(f"{what}: sequence {b} (length {lengths[b]}) has position {j} set to "
                          f"False, but every position j < length is a real token (True)")
    extra = ~real & mask
    if extra.any():
        b, j = _first(extra)
        raise CheckFailed(f"{what}: sequence {b} (length {lengths[b]}) has padding position {j} "
                          f"set to True; only positions j < {lengths[b]} are real tokens")


@check("padding_mask", "true_exactly_before_length")
def padding_pattern(t: Trial) -> None:
    cases = _padding_cases(t)
    replies = t.call_each([Args(np.array(lengths), max_len) for lengths, max_len in cases])
    for (lengths, max_len), reply in zip(cases, replies, strict=True):
        what = f"padding_mask({lengths}, {max_len})"
        mask = _as_mask(reply, what, (len(lengths), max_len))
        _check_padding(mask, lengths, max_len, what)


@check("padding_mask", "accepts_list_and_array")
def padding_inputs(t: Trial) -> None:
    max_len = int(t.rng.integers(4, 8))
    lengths = [int(n) for n in t.rng.integers(1, max_len + 1, size=3)]
    forms: list[tuple[str, Any]] = [
        ("a list", list(lengths)),
        ("a tuple", tuple(lengths)),
        ("a 1-D int64 array", np.array(lengths, dtype=np.int64)),
        ("a 1-D int32 array", np.array(lengths, dtype=np.int32)),
    ]
    replies = t.call_each([Args(value, max_len) for _, value in forms])
    for (form, _), reply in zip(forms, replies, strict=True):
        what = f"padding_mask(lengths, {max_len}) with lengths {lengths} given as {form}"
        mask = _as_mask(reply, what, (len(lengths), max_len))
        _check_padding(mask, lengths, max_len, what)


# ---- scaled_dot_product_attention ------------------------------------------------------


def _qkv(rng: np.random.Generator, batch: tuple[int, ...], lq: int, lk: int, dk: int, dv: int,
         scale: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (rng.normal(scale=scale, size=batch + (lq, dk)),
            rng.normal(scale=scale, size=batch + (lk, dk)),
            rng.normal(size=batch + (lk, dv)))


def _describe(*arrays: np.ndarray, names: str = "QKV") -> str:
    return ", ".join(f"{n} {tuple(a.shape)}" for n, a in zip(names, arrays, strict=False))


def _attention(reply: Any, what: str, *, numpy_only: bool = False,
               first: str = "output") -> tuple[np.ndarray, np.ndarray]:
    out, weights = as_pair(reply, what)
    return (as_array(out, f"the {first} of {what}", numpy_only=numpy_only),
            as_array(weights, f"the weights of {what}", numpy_only=numpy_only))


def _masked(args: Sequence[Any], mask: np.ndarray | None) -> Args:
    return Args(*args) if mask is None else Args(*args, mask=mask)


# Only ``leading_batch_dims`` and the broadcast mask of ``masked_weights_are_zero`` use batched
# input, so that a mistake with batches (``K.T``) costs those checks and not every one.


@check("scaled_dot_product_attention", "output_and_weight_shapes")
def sdpa_shapes(t: Trial) -> None:
    dims = [(3, 5, 4, 6), (1, 1, 2, 3), (4, 2, 8, 3)]
    inputs = [_qkv(t.rng, (), *d) for d in dims]
    for (lq, lk, _, dv), (Q, K, V), reply in zip(dims, inputs, t.call_each([Args(*qkv) for qkv in inputs]),
                                                  strict=True):
        what = f"attention with {_describe(Q, K, V)}"
        out, w = _attention(reply, what, numpy_only=True)
        expect_shape(out, (lq, dv), f"the output of {what}")
        expect_shape(w, (lq, lk), f"the weights of {what}")


@check("scaled_dot_product_attention", "matches_definition")
def sdpa_definition(t: Trial) -> None:
    inputs = [_qkv(t.rng, (), *d) for d in [(4, 6, 8, 5), (5, 5, 4, 4)]]
    for (Q, K, V), reply in zip(inputs, t.call_each([Args(*qkv) for qkv in inputs]), strict=True):
        ref_out, ref_w = t.reference(ref.scaled_dot_product_attention, Q, K, V)
        what = f"attention with {_describe(Q, K, V)}"
        out, w = _attention(reply, what)
        expect_close(t, w, ref_w, f"the weights of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) over the keys")
        expect_close(t, out, ref_out, f"the output of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) @ V")


@check("scaled_dot_product_attention", "weight_rows_sum_to_one")
def sdpa_rows_sum(t: Trial) -> None:
    rng = t.rng
    cases = [(_qkv(rng, (), 5, 7, 8, 3, scale=1.5), None),
             (_qkv(rng, (), 3, 4, 4, 2, scale=1.5), None),
             (_qkv(rng, (), 4, 6, 4, 3, scale=1.5), _random_mask(rng, (4, 6))),
             (_qkv(rng, (), 3, 5, 4, 2, scale=1.5), _random_mask(rng, (1, 5)))]
    for ((Q, K, V), mask), reply in zip(cases, t.call_each([_masked(qkv, mask) for qkv, mask in cases]),
                                        strict=True):
        what = f"attention with {_describe(Q, K, V)}" + _mask_text(mask)
        _, w = _attention(reply, what)
        expect_shape(w, Q.shape[:-1] + (K.shape[-2],), f"the weights of {what}")
        _expect_sums_to_one(t, w, f"the weights of {what}")


@check("scaled_dot_product_attention", "scaled_by_sqrt_dk")
def sdpa_scale(t: Trial) -> None:
    """With d_k = 16 (and 9), Q K^T of standard-normal Q and K has entries of spread
    sqrt(d_k) = 4 (3): leaving out the 1/sqrt(d_k) sharpens every row of weights by that
    factor, dividing by d_k flattens it by the same factor, and both land far outside the
    tolerance. Lq, Lk and d_v all differ from d_k, so scaling by the wrong dimension shows
    too. The message names the scale the weights do have when it is one of the two slips."""
    dims = [(3, 5, 16, 2), (4, 6, 9, 3)]
    inputs = [_qkv(t.rng, (), *d) for d in dims]
    for (lq, lk, dk, _), (Q, K, V), reply in zip(dims, inputs, t.call_each([Args(*qkv) for qkv in inputs]),
                                                 strict=True):
        _, ref_w = t.reference(ref.scaled_dot_product_attention, Q, K, V)
        what = f"attention with {_describe(Q, K, V)} (d_k = {dk})"
        _, w = _attention(reply, what)
        expect_shape(w, (lq, lk), f"the weights of {what}")
        _expect_real(w, f"the weights of {what}")
        off = discrepancy(t, w, ref_w)
        if off is None:
            continue
        scores = Q @ K.T
        diagnoses = [
            (_softmax_rows(scores), "softmax(Q K^T): the 1/sqrt(d_k) scale is missing"),
            (_softmax_rows(scores / dk), "softmax(Q K^T / d_k): divide by sqrt(d_k), not by d_k"),
        ]
        for candidate, why in diagnoses:
            if close_mask(t, w, candidate).all():
                raise CheckFailed(f"the weights of {what} equal {why} (they differ from the "
                                  f"definition {off.sizes()})", off.margin)
        expect_close(t, w, ref_w, f"the weights of {what}", "the definition softmax(Q K^T / sqrt(d_k))")


def _expect_masked_zero(w: np.ndarray, allowed: np.ndarray, what: str, blocker: str) -> None:
    allowed = np.broadcast_to(allowed, w.shape)
    _expect_real(w, what)
    bad = ~allowed & (w != 0)
    if bad.any():
        first = _first(bad)
        q, k = first[-2:]
        raise CheckFailed(f"in {what}, query {q}{_where(first, w.ndim - 2)} gives weight "
                          f"{_num(w[first])} to key {k}, which {blocker}; a masked weight must "
                          f"be exactly 0")


@check("scaled_dot_product_attention", "masked_weights_are_zero")
def sdpa_masked(t: Trial) -> None:
    rng = t.rng
    cases = [(_qkv(rng, (), 4, 6, 4, 2, scale=1.5), _random_mask(rng, (4, 6))),
             (_qkv(rng, (), 3, 5, 4, 3, scale=1.5), _random_mask(rng, (1, 5))),
             (_qkv(rng, (2,), 3, 5, 4, 3, scale=1.5), _random_mask(rng, (2, 1, 5)))]
    for ((Q, K, V), mask), reply in zip(cases, t.call_each([_masked(qkv, mask) for qkv, mask in cases]),
                                        strict=True):
        what = f"attention with {_describe(Q, K, V)}, mask {mask.shape}"
        _, w = _attention(reply, what)
        expect_shape(w, Q.shape[:-1] + (K.shape[-2],), f"the weights of {what}")
        _expect_masked_zero(w, mask, f"the weights of {what}",
                            "the mask blocks (False = may not attend)")


@check("scaled_dot_product_attention", "causal_mask_blocks_future")
def sdpa_causal(t: Trial) -> None:
    inputs = [_qkv(t.rng, (), length, length, dk, 2, scale=1.5) for length, dk in [(5, 4), (4, 3), (1, 2)]]
    masks = [np.tri(len(Q), dtype=bool) for Q, _, _ in inputs]
    replies = t.call_each([_masked(qkv, mask) for qkv, mask in zip(inputs, masks, strict=True)])
    for (Q, K, V), mask, reply in zip(inputs, masks, replies, strict=True):
        length = len(Q)
        what = f"attention with {_describe(Q, K, V)} and a causal mask {mask.shape}"
        _, w = _attention(reply, what)
        expect_shape(w, (length, length), f"the weights of {what}")
        _expect_masked_zero(w, mask, f"the weights of {what}",
                            "is a later position that the causal mask blocks")
        expect_finite(w, f"the weights of {what}")


@check("scaled_dot_product_attention", "leading_batch_dims")
def sdpa_batched(t: Trial) -> None:
    """Self-consistency: with leading batch dimensions, every batch element must get what the
    student's own function gives for that element alone (so a mistake of the 2-D formula is
    not counted again here; ``K.T``, which reverses the batch axes too, is)."""
    rng = t.rng
    cases = [(_qkv(rng, (3,), 4, 5, 2, 3), None), (_qkv(rng, (2, 3), 4, 5, 3, 2), None),
             (_qkv(rng, (2, 2), 3, 4, 5, 2), _random_mask(rng, (2, 1, 3, 4)))]
    calls = []  # each batch, then each of its elements alone
    for (Q, K, V), mask in cases:
        calls.append(_masked((Q, K, V), mask))
        full_mask = None if mask is None else np.broadcast_to(mask, Q.shape[:-1] + K.shape[-2:-1])
        calls += [_masked((Q[index], K[index], V[index]), None if full_mask is None else np.array(full_mask[index]))
                  for index in np.ndindex(*Q.shape[:-2])]
    replies = t.call_each(calls)
    for (Q, K, V), mask in cases:
        batch, (lq, _), (lk, dv) = Q.shape[:-2], Q.shape[-2:], V.shape[-2:]
        what = f"attention with batched {_describe(Q, K, V)}" + _mask_text(mask)
        out, w = _attention(next(replies), what)
        expect_shape(out, batch + (lq, dv), f"the output of {what}")
        expect_shape(w, batch + (lq, lk), f"the weights of {what}")
        for index in np.ndindex(*batch):
            alone = f"attention with Q{fmt_index(index)}, K{fmt_index(index)}, V{fmt_index(index)}"
            one_out, one_w = _attention(next(replies), alone)
            expect_shape(one_w, (lq, lk), f"the weights of {alone}")
            expect_shape(one_out, (lq, dv), f"the output of {alone}")
            for name, got, single in [("weights", w, one_w), ("output", out, one_out)]:
                off = discrepancy(t, got[index], single)
                if off is not None:
                    raise CheckFailed(
                        f"the {name} of {what}, at batch element {fmt_index(index)}, differ from "
                        f"what your function returns for that element alone ({alone}) "
                        f"{off.sizes()}: with leading batch dimensions, attend within each batch "
                        f"element (transpose only the last two axes of K, e.g. "
                        f"np.swapaxes(K, -1, -2), not K.T)", off.margin)


@check("scaled_dot_product_attention", "queries_and_keys_differ_in_length")
def sdpa_lengths(t: Trial) -> None:
    dims = [(2, 7, 4, 3), (6, 3, 5, 2)]
    inputs = [_qkv(t.rng, (), *d) for d in dims]
    for (lq, lk, _, dv), (Q, K, V), reply in zip(dims, inputs, t.call_each([Args(*qkv) for qkv in inputs]),
                                                 strict=True):
        ref_out, ref_w = t.reference(ref.scaled_dot_product_attention, Q, K, V)
        what = f"attention with {_describe(Q, K, V)} (Lq = {lq}, Lk = {lk})"
        out, w = _attention(reply, what)
        expect_shape(w, (lq, lk), f"the weights of {what}")
        expect_shape(out, (lq, dv), f"the output of {what}")
        expect_close(t, w, ref_w, f"the weights of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) over the Lk keys, one row for "
                     "each of the Lq queries")
        expect_close(t, out, ref_out, f"the output of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) @ V")


# ---- bahdanau_attention ----------------------------------------------------------------


def _bahdanau_inputs(rng: np.random.Generator, b: int, lk: int, dq: int, dk: int,
                     da: int) -> tuple[np.ndarray, ...]:
    return (rng.normal(size=(b, dq)), rng.normal(size=(b, lk, dk)),
            rng.normal(size=(dq, da)) * 1.5 / np.sqrt(dq),
            rng.normal(size=(dk, da)) * 1.5 / np.sqrt(dk),
            rng.normal(size=(da,)))


def _bahdanau_what(args: Sequence[np.ndarray], mask: np.ndarray | None = None) -> str:
    query, keys = args[0], args[1]
    text = f"bahdanau_attention with query {query.shape}, keys {keys.shape}"
    return text + f", d_a = {args[4].shape[0]}" + _mask_text(mask)


def _bahdanau(reply: Any, args: Sequence[np.ndarray], mask: np.ndarray | None = None, *,
              numpy_only: bool = False) -> tuple[np.ndarray, np.ndarray, str]:
    what = _bahdanau_what(args, mask)
    ctx, w = _attention(reply, what, numpy_only=numpy_only, first="context")
    return ctx, w, what


@check("bahdanau_attention", "output_shapes")
def bahdanau_shapes(t: Trial) -> None:
    dims = [(3, 5, 4, 6, 7), (1, 1, 2, 3, 4), (2, 4, 3, 3, 5)]
    inputs = [_bahdanau_inputs(t.rng, *d) for d in dims]
    for (b, lk, _, dk, _), args, reply in zip(dims, inputs, t.call_each([Args(*a) for a in inputs]),
                                              strict=True):
        ctx, w, what = _bahdanau(reply, args, numpy_only=True)
        expect_shape(ctx, (b, dk), f"the context of {what}")
        expect_shape(w, (b, lk), f"the weights of {what}")


@check("bahdanau_attention", "matches_definition")
def bahdanau_definition(t: Trial) -> None:
    inputs = [_bahdanau_inputs(t.rng, *d) for d in [(3, 5, 4, 6, 7), (2, 7, 5, 3, 4)]]
    for args, reply in zip(inputs, t.call_each([Args(*a) for a in inputs]), strict=True):
        ref_ctx, ref_w = t.reference(ref.bahdanau_attention, *args)
        ctx, w, what = _bahdanau(reply, args)
        expect_close(t, w, ref_w, f"the weights of {what}",
                     "the definition softmax over j of v . tanh(query[b] @ W_q + keys[b, j] @ W_k)")
        expect_close(t, ctx, ref_ctx, f"the context of {what}",
                     "the definition sum_j weights[b, j] * keys[b, j] with those weights")


@check("bahdanau_attention", "weights_sum_to_one")
def bahdanau_rows_sum(t: Trial) -> None:
    rng = t.rng
    cases: list[tuple[tuple[np.ndarray, ...], np.ndarray | None]] = [
        (_bahdanau_inputs(rng, 3, 6, 4, 5, 6), None), (_bahdanau_inputs(rng, 4, 5, 3, 2, 4), None)]
    cases.append((_bahdanau_inputs(rng, 3, 6, 4, 3, 5), _random_mask(rng, (3, 6))))
    for (args, mask), reply in zip(cases, t.call_each([_masked(a, m) for a, m in cases]), strict=True):
        ctx, w, what = _bahdanau(reply, args, mask)
        expect_shape(w, args[1].shape[:2], f"the weights of {what}")
        _expect_sums_to_one(t, w, f"the weights of {what}", slices="batch element")


@check("bahdanau_attention", "masked_keys_get_zero_weight")
def bahdanau_masked(t: Trial) -> None:
    cases = []
    for b, lk, dq, dk, da in [(3, 6, 4, 5, 6), (2, 4, 3, 3, 4)]:
        args = _bahdanau_inputs(t.rng, b, lk, dq, dk, da)
        cases.append((args, _random_mask(t.rng, (b, lk))))
    for (args, mask), reply in zip(cases, t.call_each([_masked(a, m) for a, m in cases]), strict=True):
        b, lk = mask.shape
        _, w, what = _bahdanau(reply, args, mask)
        expect_shape(w, (b, lk), f"the weights of {what}")
        _expect_real(w, f"the weights of {what}")
        bad = ~mask & (w != 0)
        if bad.any():
            i, j = _first(bad)
            raise CheckFailed(f"in the weights of {what}, batch element {i} gives weight "
                              f"{_num(w[i, j])} to key {j}, which the mask blocks; a masked key "
                              f"must get weight exactly 0")


@check("bahdanau_attention", "context_is_weighted_sum_of_keys")
def bahdanau_context(t: Trial) -> None:
    rng = t.rng
    cases = [(_bahdanau_inputs(rng, 3, 5, 4, 6, 7), None),
             (_bahdanau_inputs(rng, 2, 6, 3, 4, 5), _random_mask(rng, (2, 6)))]
    for (args, mask), reply in zip(cases, t.call_each([_masked(a, m) for a, m in cases]), strict=True):
        keys = args[1]
        ctx, w, what = _bahdanau(reply, args, mask)
        expect_shape(w, keys.shape[:2], f"the weights of {what}")
        expect_shape(ctx, (keys.shape[0], keys.shape[2]), f"the context of {what}")
        _expect_real(w, f"the weights of {what}")
        from_weights = np.einsum("bj,bjd->bd", w.astype(np.float64), keys)
        expect_close(t, ctx, _in_dtype_of(ctx, from_weights), f"the context of {what}",
                     "sum_j weights[b, j] * keys[b, j] computed from your own weights")


# ---- split_heads / combine_heads -------------------------------------------------------


@check("split_heads", "output_shape")
def split_shape(t: Trial) -> None:
    dims = [(2, 3, 8, 2), (1, 5, 12, 3), (2, 4, 6, 6), (3, 2, 4, 1)]
    xs = [t.rng.normal(size=(b, length, d_model)) for b, length, d_model, _ in dims]
    replies = t.call_each([Args(x, d[3]) for x, d in zip(xs, dims, strict=True)])
    for (b, length, d_model, heads), x, reply in zip(dims, xs, replies, strict=True):
        what = f"split_heads(x, {heads}) for x of shape {x.shape}"
        out = as_array(reply, what, numpy_only=True)
        expect_shape(out, (b, heads, length, d_model // heads), what)


@check("split_heads", "head_holds_its_features")
def split_features(t: Trial) -> None:
    dims = [(2, 3, 8, 2), (1, 4, 12, 3), (2, 3, 6, 6)]
    xs = [t.rng.normal(size=(b, length, d_model)) for b, length, d_model, _ in dims]
    replies = t.call_each([Args(x, d[3]) for x, d in zip(xs, dims, strict=True)])
    for (b, length, d_model, heads), x, reply in zip(dims, xs, replies, strict=True):
        dk = d_model // heads
        what = f"split_heads(x, {heads}) for x of shape {x.shape}"
        out = as_array(reply, what)
        expect_shape(out, (b, heads, length, dk), what)
        _expect_real(out, what)
        for h in range(heads):
            off = discrepancy(t, out[:, h], x[..., h * dk:(h + 1) * dk])
            if off is not None:
                i, p, _ = off.index
                raise CheckFailed(f"in {what}, head {h} at position {p} of batch element {i} does "
                                  f"not hold features {h * dk}..{(h + 1) * dk - 1} of x[{i}, {p}] "
                                  f"(it differs {off.sizes()}; head h holds features "
                                  f"h*d_k ... (h+1)*d_k - 1 of every position)", off.margin)


@check("split_heads", "rejects_indivisible_d_model")
def split_rejects(t: Trial) -> None:
    cases = [((2, 3, 10), 4), ((1, 2, 6), 4), ((2, 2, 9), 2), ((1, 3, 5), 3)]
    errors = t.raised_each([Args(t.rng.normal(size=shape), heads) for shape, heads in cases])
    for (shape, heads), error in zip(cases, errors, strict=True):
        what = f"split_heads(x, {heads}) for x of shape {shape}"
        if error is None:
            raise CheckFailed(f"{what} returned a result; it must raise ValueError because "
                              f"d_model = {shape[-1]} is not divisible by num_heads = {heads}")
        if not error.is_a("ValueError"):
            raise CheckFailed(f"{what} raised {error.describe()}; it must raise ValueError "
                              f"(d_model = {shape[-1]} is not divisible by num_heads = {heads})")


@check("combine_heads", "output_shape")
def combine_shape(t: Trial) -> None:
    dims = [(2, 2, 3, 4), (1, 3, 5, 2), (2, 6, 4, 1), (3, 1, 2, 5)]
    xs = [t.rng.normal(size=d) for d in dims]
    for (b, heads, length, dk), x, reply in zip(dims, xs, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"combine_heads(x) for x of shape {x.shape}"
        out = as_array(reply, what, numpy_only=True)
        expect_shape(out, (b, length, heads * dk), what)


@check("combine_heads", "inverts_split_heads")
def combine_inverts(t: Trial) -> None:
    cases = []
    for b, length, d_model, heads in [(2, 3, 8, 2), (1, 4, 12, 3), (2, 5, 6, 6)]:
        x = t.rng.normal(size=(b, length, d_model))
        cases.append((x, heads, t.reference(ref.split_heads, x, heads)))
    for (x, heads, _), reply in zip(cases, t.call_each([Args(split) for _, _, split in cases]), strict=True):
        what = f"combine_heads(split_heads(x, {heads})) for x of shape {x.shape}"
        out = as_array(reply, what)
        expect_close(t, out, x, what, "x (combine_heads must undo split_heads exactly)")


@check("combine_heads", "head_order_preserved")
def combine_order(t: Trial) -> None:
    dims = [(2, 3, 4, 2), (1, 4, 3, 3)]
    xs = [t.rng.normal(size=d) for d in dims]
    for (b, heads, length, dk), x, reply in zip(dims, xs, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"combine_heads(x) for x of shape {x.shape}"
        out = as_array(reply, what)
        expect_shape(out, (b, length, heads * dk), what)
        _expect_real(out, what)
        for h in range(heads):
            off = discrepancy(t, out[..., h * dk:(h + 1) * dk], x[:, h])
            if off is not None:
                i, p, _ = off.index
                raise CheckFailed(f"in {what}, features {h * dk}..{(h + 1) * dk - 1} of position "
                                  f"{p} of batch element {i} do not hold head {h} at that position "
                                  f"(they differ {off.sizes()}; head h becomes features "
                                  f"h*d_k ... (h+1)*d_k - 1, in head order)", off.margin)


# ---- positional_encoding ---------------------------------------------------------------


@check("positional_encoding", "output_shape")
def pe_shape(t: Trial) -> None:
    sizes = [(1, 2), (10, 4), (50, 16), (7, 6), (3, 128)]
    for (max_len, d_model), reply in zip(sizes, t.call_each([Args(*size) for size in sizes]), strict=True):
        what = f"positional_encoding({max_len}, {d_model})"
        out = as_array(reply, what, numpy_only=True)
        expect_shape(out, (max_len, d_model), what)
        expect_floating(out, what)


@check("positional_encoding", "matches_formula")
def pe_formula(t: Trial) -> None:
    sizes = [(20, 8), (64, 32), (1, 4), (10, 6), (40, 128)]
    for (max_len, d_model), reply in zip(sizes, t.call_each([Args(*size) for size in sizes]), strict=True):
        expected = t.reference(ref.positional_encoding, max_len, d_model)
        what = f"positional_encoding({max_len}, {d_model})"
        out = as_array(reply, what)
        expect_close(t, out, expected, what,
                     "the formula PE[p, 2i] = sin(p / 10000^(2i/d_model)), "
                     "PE[p, 2i+1] = cos(p / 10000^(2i/d_model))")


@check("positional_encoding", "sin_on_even_cos_on_odd")
def pe_sin_cos(t: Trial) -> None:
    """Frequency-agnostic: the angle step w of each column pair is read off row 1, and the
    pair must then be (sin(w p), cos(w p)) at every position p. A wrong frequency passes
    here (``matches_formula`` catches it); swapped or misplaced sin/cos columns do not."""
    sizes = [(12, 8), (9, 6), (16, 16)]
    for (max_len, d_model), reply in zip(sizes, t.call_each([Args(*size) for size in sizes]), strict=True):
        what = f"positional_encoding({max_len}, {d_model})"
        pe = as_array(reply, what)
        expect_shape(pe, (max_len, d_model), what)
        _expect_real(pe, what)
        pe64 = pe.astype(np.float64)
        step = np.arctan2(pe64[1, 0::2], pe64[1, 1::2])
        angles = np.arange(max_len)[:, None] * step[None, :]
        expected = np.empty((max_len, d_model))
        expected[:, 0::2] = np.sin(angles)
        expected[:, 1::2] = np.cos(angles)
        off = discrepancy(t, pe, expected)
        if off is not None:
            p, c = off.index
            raise CheckFailed(f"in {what}, columns {c - c % 2} and {c - c % 2 + 1} are not "
                              f"(sin(w p), cos(w p)) for one frequency w (they differ {off.sizes()}, "
                              f"[position, column]): even columns hold sin, odd columns cos",
                              off.margin)


@check("positional_encoding", "position_zero")
def pe_zero(t: Trial) -> None:
    sizes = [(1, 2), (5, 6), (3, 16)]
    for (max_len, d_model), reply in zip(sizes, t.call_each([Args(*size) for size in sizes]), strict=True):
        what = f"positional_encoding({max_len}, {d_model})"
        pe = as_array(reply, what)
        expect_shape(pe, (max_len, d_model), what)
        _expect_real(pe, what)
        expected = np.tile([0.0, 1.0], d_model // 2)
        off = discrepancy(t, pe[0], expected)
        if off is not None:
            c = off.index[0]
            raise CheckFailed(f"row 0 of {what} should be [0, 1, 0, 1, ...] (sin 0 = 0 in even "
                              f"columns, cos 0 = 1 in odd columns); column {c} is {_num(pe[0, c])}, "
                              f"off by {off.error:.1e} (tolerance {off.tolerance:.1e})", off.margin)


@check("positional_encoding", "rejects_odd_d_model")
def pe_rejects(t: Trial) -> None:
    sizes = [(10, 5), (4, 7), (3, 3)]
    for (max_len, d_model), error in zip(sizes, t.raised_each([Args(*size) for size in sizes]), strict=True):
        what = f"positional_encoding({max_len}, {d_model})"
        if error is None:
            raise CheckFailed(f"{what} returned a result; it must raise ValueError because "
                              f"d_model is odd (sin and cos columns come in pairs)")
        if not error.is_a("ValueError"):
            raise CheckFailed(f"{what} raised {error.describe()}; it must raise ValueError for "
                              f"an odd d_model")


# ---- relative_shift_matrix -------------------------------------------------------------


@check("relative_shift_matrix", "output_shape")
def shift_shape(t: Trial) -> None:
    cases = [(1, 4), (0, 2), (-3, 16), (5, 6)]
    for (k, d_model), reply in zip(cases, t.call_each([Args(*case) for case in cases]), strict=True):
        what = f"relative_shift_matrix({k}, {d_model})"
        out = as_array(reply, what, numpy_only=True)
        expect_shape(out, (d_model, d_model), what)
        expect_floating(out, what)


@check("relative_shift_matrix", "block_diagonal_rotations")
def shift_blocks(t: Trial) -> None:
    """Frequency-agnostic: zeros off the 2x2 diagonal blocks, and each block of the form
    [[c, s], [-s, c]] with c^2 + s^2 = 1. (A transposed block is also of this form, with
    -s for s: the sign is the business of ``rotation_property``.)"""
    cases = [(2, 8), (-1, 6), (7, 4), (3, 2)]
    for (k, d_model), reply in zip(cases, t.call_each([Args(*case) for case in cases]), strict=True):
        what = f"relative_shift_matrix({k}, {d_model})"
        M = as_array(reply, what)
        expect_shape(M, (d_model, d_model), what)
        _expect_real(M, what)
        expect_finite(M, what)
        blocks = np.kron(np.eye(d_model // 2, dtype=bool), np.ones((2, 2), dtype=bool))
        outside = discrepancy(t, M, np.where(blocks, M.astype(np.float64), 0.0))
        if outside is not None:
            row, col = outside.index
            raise CheckFailed(f"{what}[{row}, {col}] is {_num(M[row, col])}, outside the 2x2 blocks on the "
                              f"diagonal; every entry there must be 0 (off by {outside.error:.1e}, "
                              f"tolerance {outside.tolerance:.1e})", outside.margin)
        for i in range(d_model // 2):
            a, b, c, d = (np.float64(v) for v in M[2 * i:2 * i + 2, 2 * i:2 * i + 2].reshape(-1))
            block = f"in {what}, block {i} (rows and columns {2 * i}, {2 * i + 1})"
            pair = np.array([a, b, a * a + b * b])
            form = np.array([d, -c, 1.0], dtype=M.dtype)
            ok = close_mask(t, form, pair)
            if ok.all():
                continue
            off = discrepancy(t, form, pair)
            assert off is not None
            size = f"(off {off.amount()})"
            if not ok[0]:
                raise CheckFailed(f"{block} has different diagonal entries {size}; a rotation block is "
                                  f"[[cos, sin], [-sin, cos]]", off.margin)
            if not ok[1]:
                raise CheckFailed(f"{block} has off-diagonal entries that are not opposite {size}; a "
                                  f"rotation block is [[cos, sin], [-sin, cos]]", off.margin)
            raise CheckFailed(f"{block} is not a rotation: cos^2 + sin^2 is "
                              f"{_num(a * a + b * b)}, not 1 {size}", off.margin)


@check("relative_shift_matrix", "rotation_property")
def shift_rotates(t: Trial) -> None:
    cases = [(8, 3, (0, 2, 5)), (16, -2, (4, 9)), (6, 0, (3,)), (4, 7, (1, 10)), (32, 11, (0, 6))]
    replies = t.call_each([Args(k, d_model) for d_model, k, _ in cases])
    for (d_model, k, positions), reply in zip(cases, replies, strict=True):
        max_len = max(positions) + max(k, 0) + 1
        pe = t.reference(ref.positional_encoding, max_len, d_model)
        what = f"relative_shift_matrix({k}, {d_model})"
        M = as_array(reply, what)
        expect_shape(M, (d_model, d_model), what)
        _expect_real(M, what)
        for p in positions:
            moved = _in_dtype_of(M, M.astype(np.float64) @ pe[p])
            expect_close(t, moved, pe[p + k], f"M @ PE[{p}] for M = {what}",
                         f"PE[{p} + {k}] (the rotation property PE[p + k] = M @ PE[p])")
