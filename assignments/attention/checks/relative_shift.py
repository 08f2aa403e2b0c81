"""``relative_shift_matrix`` (part 1): its public example, its worked example and its hidden
checks (see ``numpy_support`` for what every NumPy check does).

The worked example is public (expected values as data, recomputed from the reference by
``tests/assignments/attention/test_worked_examples.py``): it ships in the students' ``check.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, as_array, close_mask, discrepancy
from grader.checks.expect import expect_close, expect_finite, expect_floating, expect_output, expect_shape
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY, check
from .example_support import student_reply
from .numpy_support import expect_real, in_dtype_of, num


@REGISTRY.example("relative_shift_matrix")
def relative_shift_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "relative_shift_matrix(3, 8)", "table", t.reference(ref.relative_shift_matrix, 3, 8),
                    lambda: student_reply(t, 3, 8), rows="feature", columns="feature")]


# Section 7's example: relative_shift_matrix(3, 8) moves row p of positional_encoding(20, 8) to p + 3.
SHIFT_PE_ROWS = {
    0: [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
    3: [0.1411200080598672, -0.9899924966004454, 0.2955202066613396, 0.955336489125606,
        0.02999550020249566, 0.9995500337489875, 0.002999995500002025, 0.999995500003375],
    5: [-0.9589242746631385, 0.28366218546322625, 0.479425538604203, 0.8775825618903728,
        0.04997916927067833, 0.9987502603949663, 0.004999979166692708, 0.9999875000260416],
    8: [0.9893582466233818, -0.14550003380861354, 0.7173560908995228, 0.6967067093471654,
        0.0799146939691727, 0.9968017063026194, 0.007999914666939733, 0.9999680001706663],
    16: [-0.2879033166650653, -0.9576594803233847, 0.9995736030415051, -0.029199522301288815,
         0.15931820661424598, 0.9872272833756269, 0.015999317342071415, 0.9998720027306434],
    19: [0.14987720966295234, 0.9887046181866692, 0.9463000876874145, -0.3232895668635036,
         0.18885889497650057, 0.9820042351172703, 0.018998856853967315, 0.9998195054299763],
}
SHIFT_K, SHIFT_D_MODEL = 3, 8


@check("relative_shift_matrix", "worked_example")
def shift_worked_example(t: Trial) -> None:
    (reply,) = t.call_each([Args(SHIFT_K, SHIFT_D_MODEL)])
    what = f"relative_shift_matrix({SHIFT_K}, {SHIFT_D_MODEL})"
    M = as_array(reply, what)
    expect_shape(M, (SHIFT_D_MODEL, SHIFT_D_MODEL), what)
    for p in (0, 5, 16):
        moved = in_dtype_of(M, M.astype(np.float64) @ np.array(SHIFT_PE_ROWS[p]))
        expect_close(t, moved, np.array(SHIFT_PE_ROWS[p + SHIFT_K]), f"M @ PE[{p}] for M = {what}",
                     f"PE[{p} + {SHIFT_K}] (the rotation property PE[p + k] = M @ PE[p])")


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
