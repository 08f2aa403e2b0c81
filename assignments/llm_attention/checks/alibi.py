"""``alibi_bias`` (part 1): ALiBi's linear biases, with the paper's slopes.

A bias that differs from the definition by a constant along each row ``(h, i)`` gives the same
attention and is accepted (BLOOM's ``m_h * j``), so the comparisons look at differences within
a row; a future key may be ``-inf`` or any value that gets exactly zero weight. The head counts
include ones that are not powers of two (3, 5, 6, 12), where the paper's rule is not the
geometric sequence of ``num_heads``.
"""

from __future__ import annotations

import numpy as np

from grader.checks.arrays import expect_real, num
from grader.checks.base import Args, CheckFailed, Trial, as_array, discrepancy
from grader.checks.expect import expect_close, expect_floating, expect_output, expect_raises, expect_shape
from reference import llm_numpy as ref

from . import check

ALIBI = "alibi_bias"


def _alibi_out(reply: object, heads: int, length: int) -> np.ndarray:
    what = f"alibi_bias({heads}, {length})"
    out = as_array(reply, what)
    expect_shape(out, (heads, length, length), what)
    expect_real(out, what)
    return out


def _alibi_past(bias: np.ndarray) -> np.ndarray:
    """Each row less its diagonal entry (the query's own key, always allowed), the future 0."""
    length = bias.shape[-1]
    past = np.tril(np.ones((length, length), dtype=bool))
    with np.errstate(invalid="ignore"):
        return np.where(past, bias.astype(np.float64) - np.diagonal(bias, axis1=1, axis2=2)[:, :, None], 0.0)


def _alibi_slope_of(bias: np.ndarray) -> np.ndarray:
    """m_h as the bias says it: bias[h, 1, 1] - bias[h, 1, 0] (one step back costs m_h)."""
    return bias[:, 1, 1].astype(np.float64) - bias[:, 1, 0].astype(np.float64)


@check(ALIBI, "output_shape")
def alibi_shape(t: Trial) -> None:
    cases = [(4, 6), (3, 5), (12, 1), (1, 7)]
    for (heads, length), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        expect_output(reply, f"alibi_bias({heads}, {length})", (heads, length, length), expect_floating)


@check(ALIBI, "matches_definition")
def alibi_definition(t: Trial) -> None:
    cases = [(8, 10), (6, 7), (12, 5), (5, 20), (1, 4), (16, 3)]
    for (heads, length), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        bias = _alibi_out(reply, heads, length)
        expected = _alibi_past(t.reference(ref.alibi_bias, heads, length))
        expect_close(t, _alibi_past(bias).astype(bias.dtype), expected,
                     f"alibi_bias({heads}, {length}) (each row less its diagonal entry, keys j <= i)",
                     "the definition -m_h * (i - j) with the paper's slopes")


@check(ALIBI, "falls_by_slope_per_step")
def alibi_falls(t: Trial) -> None:
    """Slope-agnostic: within head h every step back from the query costs the same m_h > 0."""
    cases = [(5, 9), (8, 6), (3, 12)]
    for (heads, length), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        what = f"alibi_bias({heads}, {length})"
        bias = _alibi_out(reply, heads, length).astype(np.float64)
        past = np.tril(np.ones((length, length), dtype=bool))
        if not np.isfinite(bias[:, past]).all():
            raise CheckFailed(f"{what} is not finite for some key j <= i (the past and the query itself)")
        slopes = _alibi_slope_of(bias)
        inside = np.tril(np.ones((length, length - 1), dtype=bool), k=-1)  # j + 1 <= i: both keys allowed
        with np.errstate(invalid="ignore"):
            steps = np.where(inside, bias[:, :, 1:] - bias[:, :, :-1], 0.0)  # [h, i, j]: the step from j to j + 1
        expected = np.where(inside, slopes[:, None, None], 0.0)
        off = discrepancy(t, steps, expected, dtype=np.float32)
        if off is not None:
            h, i, j = off.index
            raise CheckFailed(f"in {what}, head {h}: bias[{h}, {i}, {j + 1}] - bias[{h}, {i}, {j}] is "
                              f"{num(steps[h, i, j])}, but one step back costs {num(slopes[h])} in row 1 (off by "
                              f"{off.error:.1e}, tolerance {off.tolerance:.1e}): the bias must fall by the same m_h "
                              "for every step from the query",
                              off.margin)
        if (slopes <= 0).any():
            h = int(np.argmax(slopes <= 0))
            raise CheckFailed(f"in {what}, head {h}'s bias does not fall with the distance (one step back changes "
                              f"it by {num(-slopes[h])}): ALiBi's bias is -m_h * (i - j) with m_h > 0, a penalty for "
                              "distance")


@check(ALIBI, "future_gets_zero_weight")
def alibi_future(t: Trial) -> None:
    cases = [(4, 6), (6, 5), (1, 3)]
    for (heads, length), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        what = f"alibi_bias({heads}, {length})"
        bias = _alibi_out(reply, heads, length)
        future = np.triu(np.ones((length, length), dtype=bool), k=1)
        with np.errstate(invalid="ignore", over="ignore"):
            top = np.where(future, -np.inf, bias).max(axis=-1, keepdims=True)
            weight = np.exp((bias - top).astype(bias.dtype if bias.dtype.kind == "f" else np.float64))
        bad = future & ~(weight == 0)
        if bad.any():
            h, i, j = (int(v) for v in np.argwhere(bad)[0])
            raise CheckFailed(f"in {what}, bias[{h}, {i}, {j}] for a future key (j > i) is {num(bias[h, i, j])}: "
                              "a softmax gives it a weight that is not 0; the future must be -inf (or so negative "
                              "that its weight is exactly 0)")


@check(ALIBI, "slopes_follow_the_paper")
def alibi_slopes(t: Trial) -> None:
    heads_list = [3, 5, 6, 12, 8, 16, 7]
    for heads, reply in zip(heads_list, t.call_each([Args(h, 3) for h in heads_list]), strict=True):
        slopes = _alibi_slope_of(_alibi_out(reply, heads, 3))
        expected = _alibi_slope_of(t.reference(ref.alibi_bias, heads, 3))
        off = discrepancy(t, slopes, expected, dtype=np.float32)
        if off is not None:
            h = off.index[0]
            rule = ("a power of two: m_h = 2^(-8 (h + 1) / num_heads)" if heads & (heads - 1) == 0 else
                    "not a power of two: the slopes of the largest power of two p below it, then every other "
                    "slope of 2p")
            raise CheckFailed(f"alibi_bias({heads}, 3): the slope of head {h} (bias[{h}, 1, 1] - bias[{h}, 1, 0]) is "
                              f"{num(slopes[h])}, off by {off.error:.1e} (tolerance {off.tolerance:.1e}); {heads} is "
                              f"{rule} (the ALiBi paper's get_slopes)", off.margin)


@check(ALIBI, "rejects_bad_sizes")
def alibi_rejects(t: Trial) -> None:
    cases = [(0, 4), (-1, 3), (4, 0), (2, -5)]
    for (heads, length), error in zip(cases, t.raised_each([Args(*c) for c in cases]), strict=True):
        what = f"alibi_bias({heads}, {length})"
        expect_raises(error, "ValueError",
                      returned=f"{what} returned a result; it must raise ValueError (num_heads and seq_len must be "
                               "at least 1)",
                      other=f"{what} raised {{raised}}; it must raise ValueError when num_heads < 1 or seq_len < 1")
