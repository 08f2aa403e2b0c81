"""Public checks against the notebook's own worked examples: fixed inputs, and the expected
values written here as data (``tests/checks/test_worked_examples.py`` recomputes them from
the reference, so they cannot drift). They need no reference at grading time, so they ship in
the students' ``check.py`` and catch the classic slips (a missing 1/sqrt(d_k), the exponent
2i/d_model with i counting columns) before a student submits."""

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
    expect_shape,
)

from . import check
from .numpy_support import attention_pair, in_dtype_of

# The three-token example of section 4: queries = keys = values = X (d_k = 2).
SDPA_X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
SDPA_WEIGHTS = [[0.4011120926797859, 0.1977758146404282, 0.4011120926797859],
                [0.1977758146404282, 0.4011120926797859, 0.4011120926797859],
                [0.2482550782577231, 0.2482550782577231, 0.5034898434845538]]
SDPA_CAUSAL_WEIGHTS = [[1.0, 0.0, 0.0],
                       [0.3302384506733431, 0.6697615493266569, 0.0],
                       [0.2482550782577231, 0.2482550782577231, 0.5034898434845538]]
# softmax(X X^T) without the scale: the weights of the most common slip, to name it.
SDPA_UNSCALED_WEIGHTS = [[0.4223187982515182, 0.15536240349696362, 0.4223187982515182],
                         [0.15536240349696362, 0.4223187982515182, 0.4223187982515182],
                         [0.21194155761708544, 0.21194155761708544, 0.5761168847658291]]

# Section 6's example: row 7 of positional_encoding(50, 16).
PE_ROW_7 = [0.6569865987187891, 0.7539022543433046, 0.8004216463225218, -0.5994373929764008,
            0.6442176872376911, 0.7648421872844884, 0.2195560913524192, 0.9755998784081762,
            0.06994284733753277, 0.9975510002532796, 0.022134135896739408, 0.9997550100040032,
            0.006999942833473391, 0.9999755001000415, 0.002213592554349579, 0.9999975500010004]

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


@check("scaled_dot_product_attention", "worked_example")
def sdpa_worked_example(t: Trial) -> None:
    X = np.array(SDPA_X)
    causal = np.tri(3, dtype=bool)
    cases = [("the worked example (Q = K = V = X, d_k = 2)", None, SDPA_WEIGHTS),
             ("the worked example with the causal mask", causal, SDPA_CAUSAL_WEIGHTS)]
    calls = [Args(X, X, X) if mask is None else Args(X, X, X, mask=mask) for _, mask, _ in cases]
    for (label, _, expected), reply in zip(cases, t.call_each(calls), strict=True):
        what = f"attention on {label}"
        out, w = attention_pair(reply, what)
        expect_shape(w, (3, 3), f"the weights of {what}")
        off = discrepancy(t, w, np.array(expected)) if w.dtype.kind == "f" else None
        if off is not None and close_mask(t, w, np.array(SDPA_UNSCALED_WEIGHTS)).all():
            raise CheckFailed(f"the weights of {what} equal softmax(Q K^T): the 1/sqrt(d_k) scale is missing "
                              f"(they differ from the definition {off.sizes()})", off.margin)
        expect_close(t, w, np.array(expected), f"the weights of {what}", "softmax(Q K^T / sqrt(d_k))")
        expect_close(t, out, np.array(expected) @ X, f"the output of {what}", "weights @ V")


@check("positional_encoding", "worked_example")
def pe_worked_example(t: Trial) -> None:
    (reply,) = t.call_each([Args(50, 16)])
    what = "positional_encoding(50, 16)"
    pe = as_array(reply, what)
    expect_shape(pe, (50, 16), what)
    expect_close(t, pe[7], np.array(PE_ROW_7), f"row 7 of {what}",
                 "PE[7, 2i] = sin(7 / 10000^(2i/16)), PE[7, 2i+1] = cos(7 / 10000^(2i/16)) "
                 "with i counting the pairs of columns")


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


# Section 8's example: one query, three keys, the three scores on the same input. W is not
# symmetric and W_c's halves differ, so W on the keys, or the key before the query, shows.
LUONG_QUERY = [[1.0, 2.0]]
LUONG_KEYS = [[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]
LUONG_VALUES = [[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]]
LUONG_W = [[1.0, 1.0], [0.0, 1.0]]
LUONG_W_C = [[0.5, 0.0], [0.0, 0.5], [1.0, 0.0], [0.0, -1.0]]
LUONG_V = [1.0, 1.0]
LUONG_WEIGHTS = {
    "dot": [[0.09003057317038046, 0.24472847105479764, 0.6652409557748218]],
    "general": [[0.03511902695933972, 0.2594964603424191, 0.7053845126982411]],
    "concat": [[0.566018784742138, 0.16969488220721407, 0.264286333050648]],
}
# The weights of the classic slip of each method with parameters, to name it.
LUONG_SLIP_WEIGHTS = {
    "general": ([[0.11419519938459449, 0.04201006613406605, 0.8437947344813395]],
                "W applied to the keys instead of the query"),
    "concat": ([[0.3356314803364041, 0.30838191607582205, 0.35598660358777384]],
               "concat(key, query): the query comes first"),
}


def luong_worked_example(t: Trial, method: str) -> None:
    params = {"dot": {}, "general": {"W": np.array(LUONG_W)},
              "concat": {"W_c": np.array(LUONG_W_C), "v": np.array(LUONG_V)}}[method]
    values = np.array(LUONG_VALUES)
    (reply,) = t.call_each([Args(np.array(LUONG_QUERY), np.array(LUONG_KEYS), values, method=method, **params)])
    what = f"luong_attention(method={method!r}) on the worked example"
    context, weights = attention_pair(reply, what, first="context")
    expect_shape(weights, (1, 3), f"the weights of {what}")
    expected = np.array(LUONG_WEIGHTS[method])
    off = discrepancy(t, weights, expected) if weights.dtype.kind == "f" else None
    if off is not None and method in LUONG_SLIP_WEIGHTS:
        slip, why = LUONG_SLIP_WEIGHTS[method]
        if close_mask(t, weights, np.array(slip)).all():
            raise CheckFailed(f"the weights of {what} are those of {why} (they differ from the definition "
                              f"{off.sizes()})", off.margin)
    expect_close(t, weights, expected, f"the weights of {what}", f"the {method} scores' softmax over the keys")
    expect_close(t, context, in_dtype_of(context, expected @ values[0]), f"the context of {what}",
                 "sum_j weights[j] * values[j]")


@check("luong_attention", "dot_worked_example")
def luong_dot_worked_example(t: Trial) -> None:
    luong_worked_example(t, "dot")


@check("luong_attention", "general_worked_example")
def luong_general_worked_example(t: Trial) -> None:
    luong_worked_example(t, "general")


@check("luong_attention", "concat_worked_example")
def luong_concat_worked_example(t: Trial) -> None:
    luong_worked_example(t, "concat")
