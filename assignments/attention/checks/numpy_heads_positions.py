"""Hidden checks for part 1: splitting and combining heads, the positional encoding and
its relative shift (see ``numpy_items`` for what every NumPy check does)."""

from __future__ import annotations

import numpy as np

from grader.checks.base import (
    Args,
    CheckFailed,
    Trial,
    as_array,
    close_mask,
    discrepancy,
    expect_close,
    expect_finite,
    expect_floating,
    expect_shape,
)
from grader.checks.expect import expect_output, expect_raises
from reference import attention_numpy as ref

from . import check
from .numpy_support import (
    expect_real,
    in_dtype_of,
    num,
)

# ---- split_heads / combine_heads -------------------------------------------------------


@check("split_heads", "output_shape")
def split_shape(t: Trial) -> None:
    dims = [(2, 3, 8, 2), (1, 5, 12, 3), (2, 4, 6, 6), (3, 2, 4, 1)]
    xs = [t.rng.normal(size=(b, length, d_model)) for b, length, d_model, _ in dims]
    replies = t.call_each([Args(x, d[3]) for x, d in zip(xs, dims, strict=True)])
    for (b, length, d_model, heads), x, reply in zip(dims, xs, replies, strict=True):
        what = f"split_heads(x, {heads}) for x of shape {x.shape}"
        expect_output(reply, what, (b, heads, length, d_model // heads))


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
        expect_real(out, what)
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
        expect_raises(error, "ValueError",
                      returned=f"{what} returned a result; it must raise ValueError because "
                               f"d_model = {shape[-1]} is not divisible by num_heads = {heads}",
                      other=f"{what} raised {{raised}}; it must raise ValueError "
                            f"(d_model = {shape[-1]} is not divisible by num_heads = {heads})")


@check("combine_heads", "output_shape")
def combine_shape(t: Trial) -> None:
    dims = [(2, 2, 3, 4), (1, 3, 5, 2), (2, 6, 4, 1), (3, 1, 2, 5)]
    xs = [t.rng.normal(size=d) for d in dims]
    for (b, heads, length, dk), x, reply in zip(dims, xs, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"combine_heads(x) for x of shape {x.shape}"
        expect_output(reply, what, (b, length, heads * dk))


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
        expect_real(out, what)
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
        expect_output(reply, what, (max_len, d_model), expect_floating)


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
        expect_real(pe, what)
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
        expect_real(pe, what)
        expected = np.tile([0.0, 1.0], d_model // 2)
        off = discrepancy(t, pe[0], expected)
        if off is not None:
            c = off.index[0]
            raise CheckFailed(f"row 0 of {what} should be [0, 1, 0, 1, ...] (sin 0 = 0 in even "
                              f"columns, cos 0 = 1 in odd columns); column {c} is {num(pe[0, c])}, "
                              f"off by {off.error:.1e} (tolerance {off.tolerance:.1e})", off.margin)


@check("positional_encoding", "rejects_odd_d_model")
def pe_rejects(t: Trial) -> None:
    sizes = [(10, 5), (4, 7), (3, 3)]
    for (max_len, d_model), error in zip(sizes, t.raised_each([Args(*size) for size in sizes]), strict=True):
        what = f"positional_encoding({max_len}, {d_model})"
        expect_raises(error, "ValueError",
                      returned=f"{what} returned a result; it must raise ValueError because "
                               f"d_model is odd (sin and cos columns come in pairs)",
                      other=f"{what} raised {{raised}}; it must raise ValueError for an odd d_model")


# ---- relative_shift_matrix -------------------------------------------------------------


@check("relative_shift_matrix", "output_shape")
def shift_shape(t: Trial) -> None:
    cases = [(1, 4), (0, 2), (-3, 16), (5, 6)]
    for (k, d_model), reply in zip(cases, t.call_each([Args(*case) for case in cases]), strict=True):
        what = f"relative_shift_matrix({k}, {d_model})"
        expect_output(reply, what, (d_model, d_model), expect_floating)


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
        expect_real(M, what)
        expect_finite(M, what)
        blocks = np.kron(np.eye(d_model // 2, dtype=bool), np.ones((2, 2), dtype=bool))
        outside = discrepancy(t, M, np.where(blocks, M.astype(np.float64), 0.0))
        if outside is not None:
            row, col = outside.index
            raise CheckFailed(f"{what}[{row}, {col}] is {num(M[row, col])}, outside the 2x2 blocks on the "
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
                              f"{num(a * a + b * b)}, not 1 {size}", off.margin)


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
        expect_real(M, what)
        for p in positions:
            moved = in_dtype_of(M, M.astype(np.float64) @ pe[p])
            expect_close(t, moved, pe[p + k], f"M @ PE[{p}] for M = {what}",
                         f"PE[{p} + {k}] (the rotation property PE[p + k] = M @ PE[p])")
