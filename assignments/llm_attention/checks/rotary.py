"""``apply_rotary`` (part 1): rotary position embeddings, RoFormer's adjacent pairs.

Every check draws its inputs from ``t.rng`` and says which property broke and by how much; the
only values a message quotes are the student's own. The properties (adjacent pairs, lengths,
position 0, the relative property, the defaults, leading dimensions) need no reference and are
public; the comparison with the definition is hidden. Positions stay at most 100 (see the
YAML: the tolerance grows with the position when angles are computed in float32).
"""

from __future__ import annotations

import numpy as np

from grader.checks.arrays import expect_real, in_dtype_of, num
from grader.checks.base import Args, CheckFailed, Trial, as_array, discrepancy
from grader.checks.expect import expect_close, expect_floating, expect_output, expect_raises, expect_shape
from reference import llm_numpy as ref

from . import check

ROPE = "apply_rotary"
ROPE_MAX_POSITION = 100


def _rope_out(reply: object, x: np.ndarray, what: str) -> np.ndarray:
    out = as_array(reply, what)
    expect_shape(out, x.shape, what)
    expect_real(out, what)
    return out


def _rope_what(x: np.ndarray, positions: np.ndarray | None = None) -> str:
    return f"apply_rotary(x {x.shape}" + (f", positions of length {len(positions)})" if positions is not None else ")")


@check(ROPE, "output_shape")
def rope_shape(t: Trial) -> None:
    shapes = [(5, 4), (2, 7, 8), (2, 3, 6, 16), (1, 2)]
    xs = [t.rng.normal(size=shape) for shape in shapes]
    for x, reply in zip(xs, t.call_each([Args(x) for x in xs]), strict=True):
        expect_output(reply, _rope_what(x), x.shape, expect_floating)


@check(ROPE, "matches_definition")
def rope_definition(t: Trial) -> None:
    cases = []
    for shape, with_positions, base in [((7, 4), False, None), ((5, 8), True, None), ((2, 6, 16), True, None),
                                        ((3, 1, 4, 64), True, None), ((9, 6), True, 500.0), ((4, 12), False, 10.0)]:
        x = t.rng.normal(size=shape)
        positions = t.rng.integers(0, ROPE_MAX_POSITION + 1, size=shape[-2]) if with_positions else None
        cases.append((x, positions, base))
    calls = [Args(x, *([] if p is None else [p]), **({} if b is None else {"base": b})) for x, p, b in cases]
    for (x, positions, base), reply in zip(cases, t.call_each(calls), strict=True):
        what = _rope_what(x, positions)[:-1] + ("" if base is None else f", base={base:g}") + ")"
        out = _rope_out(reply, x, what)
        expected = t.reference(ref.apply_rotary, x, positions, 10000.0 if base is None else base)
        expect_close(t, out, expected, what,
                     "the definition: each pair (2i, 2i+1) at position p rotated by p * base^(-2i/d), "
                     "[[cos, -sin], [sin, cos]]")


@check(ROPE, "rotates_adjacent_pairs")
def rope_adjacent(t: Trial) -> None:
    """Row r of x is the unit vector e_r, all at position 3: its rotation may only reach
    features 2i and 2i+1 of r's own pair. The rotate-half layout moves it to r +- d/2."""
    cases = []
    for d in (4, 8, 16):
        x = np.eye(d)
        cases.append((x, np.full(d, 3)))
    for (x, _), reply in zip(cases, t.call_each([Args(x, p) for x, p in cases]), strict=True):
        d = x.shape[-1]
        what = f"apply_rotary(np.eye({d}), positions all 3)"
        out = _rope_out(reply, x, what)
        pairs = np.kron(np.eye(d // 2, dtype=bool), np.ones((2, 2), dtype=bool))
        off = discrepancy(t, out, np.where(pairs, out.astype(np.float64), 0.0))
        if off is not None:
            r, c = off.index
            raise CheckFailed(f"{what} moves feature {r} into feature {c}, outside its pair ({r - r % 2}, "
                              f"{r - r % 2 + 1}) (by {off.error:.1e}, tolerance {off.tolerance:.1e}): RoPE rotates "
                              "adjacent features (2i, 2i+1), not the rotate-half layout that pairs i with i + d/2",
                              off.margin)


@check(ROPE, "keeps_pair_lengths")
def rope_lengths(t: Trial) -> None:
    cases = []
    for shape in [(2, 5, 8), (6, 4), (3, 12)]:
        x = t.rng.normal(size=shape)
        cases.append((x, t.rng.integers(0, ROPE_MAX_POSITION + 1, size=shape[-2])))
    for (x, positions), reply in zip(cases, t.call_each([Args(x, p) for x, p in cases]), strict=True):
        what = _rope_what(x, positions)
        out = _rope_out(reply, x, what).astype(np.float64)
        lengths = np.hypot(out[..., 0::2], out[..., 1::2])
        before = in_dtype_of(as_array(reply, what), np.hypot(x[..., 0::2], x[..., 1::2]))
        off = discrepancy(t, lengths.astype(before.dtype), before)
        if off is not None:
            pair = off.index[-1]
            raise CheckFailed(f"{what} changes the length of the pair (features {2 * pair}, {2 * pair + 1}) "
                              f"{off.sizes()}: a rotation keeps each pair's length", off.margin)


@check(ROPE, "position_zero_unchanged")
def rope_zero(t: Trial) -> None:
    x = t.rng.normal(size=(6, 8))
    y = t.rng.normal(size=(2, 3, 4))
    calls = [Args(x, np.zeros(6, dtype=np.int64)), Args(y)]
    for (arr, where), reply in zip([(x, "at positions all 0"), (y, "row 0 (position 0 by default)")],
                                   t.call_each(calls), strict=True):
        what = f"apply_rotary(x {arr.shape}" + (", np.zeros(6, int))" if arr is x else ")")
        out = _rope_out(reply, arr, what)
        got, expected = (out, arr) if arr is x else (out[..., 0, :], arr[..., 0, :])
        off = discrepancy(t, got, in_dtype_of(out, expected))
        if off is not None:
            raise CheckFailed(f"{what} changes x {where} {off.amount()}: the angle there is 0, so x must come back "
                              "unchanged (positions start at 0)", off.margin)


@check(ROPE, "relative_positions_only")
def rope_relative(t: Trial) -> None:
    """apply_rotary(q, [p]) . apply_rotary(k, [s]) must equal the same at [p + t], [s + t]. Each
    pair of q and k has length 1, so a score is at most d/2 and every entry is on one scale."""
    d = 8
    q, k = (v / np.repeat(np.hypot(v[..., 0::2], v[..., 1::2]), 2, axis=-1) for v in t.rng.normal(size=(2, 1, d)))
    triples = [(int(p), int(s), int(u)) for p, s, u in zip(t.rng.integers(0, 40, size=6), t.rng.integers(0, 40, size=6),
                                                          t.rng.integers(1, 60, size=6), strict=True)]
    calls = []
    for p, s, u in triples:
        calls += [Args(q, np.array([p])), Args(k, np.array([s])),
                  Args(q, np.array([p + u])), Args(k, np.array([s + u]))]
    replies = list(t.call_each(calls))
    outs = [_rope_out(r, q, f"apply_rotary(x (1, {d}), [position])").astype(np.float64) for r in replies]
    here = np.array([(outs[4 * n] @ outs[4 * n + 1].T).item() for n in range(len(triples))])
    moved = np.array([(outs[4 * n + 2] @ outs[4 * n + 3].T).item() for n in range(len(triples))])
    dtype = as_array(replies[0], "apply_rotary(...)").dtype
    off = discrepancy(t, moved, here, dtype=dtype if dtype.kind == "f" else np.float64)
    if off is not None:
        p, s, u = triples[off.index[0]]
        raise CheckFailed(f"the score apply_rotary(q, [{p + u}]) . apply_rotary(k, [{s + u}]) is "
                          f"{num(moved[off.index])}, but at [{p}], [{s}] it is {num(here[off.index])} (off by "
                          f"{off.error:.1e}, tolerance {off.tolerance:.1e}): a RoPE score depends only on the "
                          "positions' difference", off.margin)


@check(ROPE, "default_positions")
def rope_default(t: Trial) -> None:
    x = t.rng.normal(size=(2, 9, 6))
    default, explicit = t.call_each([Args(x), Args(x, np.arange(9))])
    what = f"apply_rotary(x {x.shape})"
    got = _rope_out(default, x, what)
    expect_close(t, got, in_dtype_of(got, _rope_out(explicit, x, f"apply_rotary(x {x.shape}, np.arange(9))")), what,
                 "your apply_rotary(x, np.arange(9)): the default positions are 0 .. L-1")


@check(ROPE, "leading_dims")
def rope_leading(t: Trial) -> None:
    x = t.rng.normal(size=(2, 3, 5, 8))
    positions = t.rng.integers(0, ROPE_MAX_POSITION + 1, size=5)
    calls = [Args(x, positions)] + [Args(x[b, h], positions) for b in range(2) for h in range(3)]
    replies = list(t.call_each(calls))
    what = _rope_what(x, positions)
    whole = _rope_out(replies[0], x, what)
    rows = [_rope_out(r, x[0, 0], _rope_what(x[0, 0], positions)).astype(np.float64) for r in replies[1:]]
    expect_close(t, whole, in_dtype_of(whole, np.stack(rows).reshape(x.shape)), what,
                 "your apply_rotary on each x[b, h] alone: the same positions for every leading index")


@check(ROPE, "rejects_odd_d")
def rope_rejects(t: Trial) -> None:
    shapes = [(4, 5), (2, 3, 7), (1, 1)]
    xs = [t.rng.normal(size=shape) for shape in shapes]
    for x, error in zip(xs, t.raised_each([Args(x) for x in xs]), strict=True):
        what = _rope_what(x)
        expect_raises(error, "ValueError",
                      returned=f"{what} returned a result; it must raise ValueError because d = {x.shape[-1]} is "
                               "odd (features are rotated in pairs)",
                      other=f"{what} raised {{raised}}; it must raise ValueError for an odd d")
