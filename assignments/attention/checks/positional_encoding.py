"""``positional_encoding`` (part 1): its public example, its worked example and its hidden
checks (see ``numpy_support`` for what every NumPy check does). The module
``PositionalEncoding`` of part 2 is ``positional_encoding_module``.

The worked example is public (expected values as data, recomputed from the reference by
``tests/assignments/attention/test_worked_examples.py``): it ships in the students' ``check.py`` and catches
the classic slip, the exponent 2i/d_model with i counting columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, as_array, discrepancy
from grader.checks.expect import expect_close, expect_floating, expect_output, expect_raises, expect_shape
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY, check
from .example_support import PF, student_reply
from .numpy_support import expect_real, num


@REGISTRY.example("positional_encoding")
def positional_encoding_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "positional_encoding(50, 16)", "table", t.reference(ref.positional_encoding, 50, 16),
                    lambda: student_reply(t, 50, 16), **PF)]


# Section 6's example: row 7 of positional_encoding(50, 16).
PE_ROW_7 = [0.6569865987187891, 0.7539022543433046, 0.8004216463225218, -0.5994373929764008,
            0.6442176872376911, 0.7648421872844884, 0.2195560913524192, 0.9755998784081762,
            0.06994284733753277, 0.9975510002532796, 0.022134135896739408, 0.9997550100040032,
            0.006999942833473391, 0.9999755001000415, 0.002213592554349579, 0.9999975500010004]


@check("positional_encoding", "worked_example")
def pe_worked_example(t: Trial) -> None:
    (reply,) = t.call_each([Args(50, 16)])
    what = "positional_encoding(50, 16)"
    pe = as_array(reply, what)
    expect_shape(pe, (50, 16), what)
    expect_close(t, pe[7], np.array(PE_ROW_7), f"row 7 of {what}",
                 "PE[7, 2i] = sin(7 / 10000^(2i/16)), PE[7, 2i+1] = cos(7 / 10000^(2i/16)) "
                 "with i counting the pairs of columns")


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
