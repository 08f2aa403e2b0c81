"""``luong_attention`` (part 1): multiplicative attention with the scores ``dot``, ``general``
and ``concat``; its public example, its worked examples and its hidden checks (see
``numpy_support`` for what every NumPy check does). The module ``LuongAttention`` of part 2 is
``luong_module``.

Every check but ``rejects_unknown_method`` grades one method, and calls the student's
function with that method only: a student whose ``concat`` is wrong (or missing) loses the
``concat_*`` checks and keeps the others. The inputs have ``d_v != d`` (so a context taken
from the keys has the wrong shape), more than one batch element and several ``Lk``; ``W`` is
far from symmetric (so ``W`` applied to the keys instead of the query shows), and ``W_c``'s
two halves differ (so the key before the query shows).

The worked examples are public (expected values as data, recomputed from the reference by
``tests/assignments/attention/test_worked_examples.py``): they ship in the students' ``check.py`` and name
the classic slip of each method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, close_mask, discrepancy
from grader.checks.expect import expect_close, expect_raises, expect_shape
from grader.checks.inputs import random_mask
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY, check
from .example_support import LUONG_METHODS, student_reply
from .numpy_support import (
    attention_pair,
    expect_outputs,
    expect_real,
    expect_sums_to_one,
    first_true,
    in_dtype_of,
    mask_text,
    num,
)

LUONG = "luong_attention"
LUONG_SCORES = {
    "dot": "e[b, j] = query[b] . keys[b, j]",
    "general": "e[b, j] = (query[b] @ W) . keys[b, j]",
    "concat": "e[b, j] = v . tanh(concat(query[b], keys[b, j]) @ W_c)",
}


def luong_inputs(rng: np.random.Generator, method: str, b: int, lk: int, d: int, dv: int,
                 da: int = 5) -> dict[str, np.ndarray]:
    """Keyword arguments of one call: query, keys, values and the method's parameters."""
    args = {"query": rng.normal(size=(b, d)), "keys": rng.normal(size=(b, lk, d)),
            "values": rng.normal(size=(b, lk, dv))}
    if method == "general":
        # Plus an antisymmetric part: W and W^T differ as much as W and 0 do.
        raw = rng.normal(size=(d, d))
        args["W"] = (raw + (raw - raw.T)) / np.sqrt(2 * d)
    elif method == "concat":
        args["W_c"] = rng.normal(size=(2 * d, da)) * 1.5 / np.sqrt(2 * d)
        args["v"] = rng.normal(size=(da,))
    return args


def luong_call(method: str, args: dict[str, np.ndarray], mask: np.ndarray | None = None) -> Args:
    """The arguments by keyword, as the contract names them (the order of W, W_c, v is the
    contract's too, but a keyword call does not depend on it)."""
    return Args(**args, method=method) if mask is None else Args(**args, method=method, mask=mask)


def luong_what(method: str, args: dict[str, np.ndarray], mask: np.ndarray | None = None) -> str:
    query, keys, values = args["query"], args["keys"], args["values"]
    return (f"luong_attention(method={method!r}) with query {query.shape}, keys {keys.shape}, "
            f"values {values.shape}" + mask_text(mask))


def luong_cases(rng: np.random.Generator, method: str, dims: Sequence[tuple[int, int, int, int]],
                masked: Sequence[bool]) -> list[tuple[dict[str, np.ndarray], np.ndarray | None]]:
    cases = []
    for (b, lk, d, dv), with_mask in zip(dims, masked, strict=True):
        args = luong_inputs(rng, method, b, lk, d, dv)
        cases.append((args, random_mask(rng, (b, lk)) if with_mask else None))
    return cases


def luong_replies(t: Trial, method: str, cases: Sequence[tuple[dict[str, np.ndarray], np.ndarray | None]]
                  ) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """(context, weights, what) of each case, in order; the first call that raised fails the check."""
    replies = t.call_each([luong_call(method, args, mask) for args, mask in cases])
    out = []
    for (args, mask), reply in zip(cases, replies, strict=True):
        what = luong_what(method, args, mask)
        context, weights = attention_pair(reply, what, first="context")
        out.append((context, weights, what))
    return out


@REGISTRY.example("luong_attention")
def luong_example(t: Trial) -> Sequence[Picture]:
    rng = np.random.default_rng(8)  # the notebook's comparison of the three scores
    query, keys, values = rng.standard_normal((2, 4)), rng.standard_normal((2, 6, 4)), rng.standard_normal((2, 6, 3))
    params = {"W": rng.standard_normal((4, 4)) / 2, "W_c": rng.standard_normal((8, 5)) / 2,
              "v": rng.standard_normal(5)}
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    pictures = []
    for method in LUONG_METHODS:
        expected = t.reference(ref.luong_attention, query, keys, values, method, mask=mask, **params)[1]
        pictures.append(picture(
            t, f"weights of luong_attention(method={method!r}) (B = 2, Lk = 6, mask)", "weights", expected,
            lambda method=method: student_reply(t, query, keys, values, method, mask=mask, part=1, **params),
            rows="batch element", columns="key"))
    return pictures


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


# ---- the properties, one method at a time ------------------------------------------------


def luong_shapes(t: Trial, method: str) -> None:
    dims = [(3, 5, 4, 6), (1, 1, 2, 3), (2, 4, 3, 3)]
    cases = luong_cases(t.rng, method, dims, [False] * len(dims))
    replies = t.call_each([luong_call(method, args) for args, _ in cases])
    for (b, lk, _, dv), (args, _), reply in zip(dims, cases, replies, strict=True):
        expect_outputs(reply, luong_what(method, args), ((b, dv), (b, lk)), first="context")


def luong_sums(t: Trial, method: str) -> None:
    cases = luong_cases(t.rng, method, [(3, 6, 4, 5), (4, 5, 3, 2), (3, 6, 4, 3)], [False, False, True])
    for (args, _), (_, weights, what) in zip(cases, luong_replies(t, method, cases), strict=True):
        expect_shape(weights, args["keys"].shape[:2], f"the weights of {what}")
        expect_sums_to_one(t, weights, f"the weights of {what}", slices="batch element")


def luong_masked(t: Trial, method: str) -> None:
    cases = luong_cases(t.rng, method, [(3, 6, 4, 5), (2, 4, 3, 3)], [True, True])
    for (_, mask), (_, weights, what) in zip(cases, luong_replies(t, method, cases), strict=True):
        assert mask is not None
        expect_shape(weights, mask.shape, f"the weights of {what}")
        expect_real(weights, f"the weights of {what}")
        bad = ~mask & (weights != 0)
        if bad.any():
            i, j = first_true(bad)
            raise CheckFailed(f"in the weights of {what}, batch element {i} gives weight "
                              f"{num(weights[i, j])} to key {j}, which the mask blocks (False = may "
                              f"not attend); a masked key must get weight exactly 0")


def luong_context(t: Trial, method: str) -> None:
    """The context from the student's own weights: a sum of the values (d_v = d in the second
    case, so a sum of the keys has the right shape and is told apart by its numbers)."""
    cases = luong_cases(t.rng, method, [(3, 5, 4, 6), (2, 6, 3, 3)], [False, True])
    for (args, _), (context, weights, what) in zip(cases, luong_replies(t, method, cases), strict=True):
        keys, values = args["keys"], args["values"]
        expect_shape(weights, keys.shape[:2], f"the weights of {what}")
        expect_real(weights, f"the weights of {what}")
        from_weights = np.einsum("bj,bjv->bv", weights.astype(np.float64), values)
        if context.shape == keys.shape[::2] and context.shape != values.shape[::2]:
            raise CheckFailed(f"the context of {what} has shape {context.shape}, the shape of a sum of "
                              f"the keys; it is the weighted sum of the values, shape {values.shape[::2]}")
        expect_shape(context, values.shape[::2], f"the context of {what}")
        off = discrepancy(t, context, in_dtype_of(context, from_weights))
        if off is not None and context.dtype.kind == "f":
            of_keys = np.einsum("bj,bjd->bd", weights.astype(np.float64), keys)
            # Only where the keys' width is the values' can a sum of the keys pass for the context.
            if of_keys.shape == context.shape and close_mask(t, context, in_dtype_of(context, of_keys)).all():
                raise CheckFailed(f"the context of {what} is the weighted sum of the keys; it is "
                                  f"sum_j weights[b, j] * values[b, j] (it differs from that "
                                  f"{off.sizes()})", off.margin)
        expect_close(t, context, in_dtype_of(context, from_weights), f"the context of {what}",
                     "sum_j weights[b, j] * values[b, j] computed from your own weights")


# ---- each method against its definition ---------------------------------------------------


def _luong_slips(method: str, args: dict[str, np.ndarray], mask: np.ndarray | None) -> list[tuple[np.ndarray, str]]:
    """Weights of the classic slips of ``method`` on these inputs, each with what it is."""
    query, keys, values = args["query"], args["keys"], args["values"]
    d = query.shape[-1]
    slips = []
    if method in ("dot", "general"):
        W = args.get("W")
        scaled = dict(args, query=query / np.sqrt(d))
        slips.append((ref.luong_attention(**scaled, method=method, mask=mask)[1],
                      "scores divided by sqrt(d): Luong's scores are not scaled (that is the Transformer's "
                      "scaled dot product)"))
    if method == "general":
        W = args["W"]
        slips.append((ref.luong_attention(query, keys, values, "general", W=W.T, mask=mask)[1],
                      "W applied to the keys, (keys[b, j] @ W) . query[b], which is query[b] @ W^T: apply "
                      "W to the query, (query[b] @ W) . keys[b, j]"))
    if method == "concat":
        W_c = args["W_c"]
        swapped = np.concatenate([W_c[d:], W_c[:d]])
        slips.append((ref.luong_attention(query, keys, values, "concat", W_c=swapped, v=args["v"], mask=mask)[1],
                      "concat(keys[b, j], query[b]) @ W_c: the query comes first, concat(query[b], keys[b, j])"))
    return slips


def luong_definition(t: Trial, method: str) -> None:
    cases = luong_cases(t.rng, method, [(3, 5, 4, 6), (2, 7, 6, 3), (4, 3, 5, 2)], [False, False, True])
    for (args, mask), (context, weights, what) in zip(cases, luong_replies(t, method, cases), strict=True):
        ref_context, ref_weights = t.reference(ref.luong_attention, **args, method=method, mask=mask)
        expect_shape(weights, ref_weights.shape, f"the weights of {what}")
        expect_real(weights, f"the weights of {what}")
        off = discrepancy(t, weights, ref_weights)
        if off is not None:
            for slip, why in _luong_slips(method, args, mask):
                if close_mask(t, weights, slip).all():
                    raise CheckFailed(f"the weights of {what} are those of {why} (they differ from the "
                                      f"definition {off.sizes()})", off.margin)
        expect_close(t, weights, ref_weights, f"the weights of {what}",
                     f"the definition softmax over j of {LUONG_SCORES[method]}")
        expect_close(t, context, ref_context, f"the context of {what}",
                     "the definition sum_j weights[b, j] * values[b, j] with those weights")


# ---- bad arguments -----------------------------------------------------------------------------


def _luong_expect_value_error(t: Trial, calls: Sequence[tuple[Args, str]]) -> None:
    for (_, text), error in zip(calls, t.raised_each([c for c, _ in calls]), strict=True):
        expect_raises(error, "ValueError",
                      returned=f"luong_attention({text}) returned without an error: raise ValueError",
                      other=f"luong_attention({text}) raised {{raised}}; the contract asks for a "
                            "ValueError")


def luong_missing(t: Trial, method: str, missing: Sequence[str]) -> None:
    args = luong_inputs(t.rng, method, 2, 4, 3, 2)
    calls = []
    for name in missing:
        kwargs: dict[str, Any] = {**args, name: None}
        calls.append((luong_call(method, kwargs), f"method={method!r}, {name}=None"))
    _luong_expect_value_error(t, calls)


@check(LUONG, "rejects_unknown_method")
def luong_rejects_unknown_method(t: Trial) -> None:
    args = {**luong_inputs(t.rng, "general", 2, 4, 3, 2),
            **{k: v for k, v in luong_inputs(t.rng, "concat", 2, 4, 3, 2).items() if k in ("W_c", "v")}}
    # Every parameter is given, so only the method's name can be the reason to refuse.
    _luong_expect_value_error(t, [(luong_call(method, args), f"method={method!r}")
                                  for method in ("location", "additive", "scaled_dot")])


# ---- the checks, method by method (top-level functions: check.py inlines the public ones) ----


@check(LUONG, "dot_output_shapes")
def luong_dot_shapes(t: Trial) -> None:
    luong_shapes(t, "dot")


@check(LUONG, "general_output_shapes")
def luong_general_shapes(t: Trial) -> None:
    luong_shapes(t, "general")


@check(LUONG, "concat_output_shapes")
def luong_concat_shapes(t: Trial) -> None:
    luong_shapes(t, "concat")


@check(LUONG, "dot_weights_sum_to_one")
def luong_dot_sums(t: Trial) -> None:
    luong_sums(t, "dot")


@check(LUONG, "general_weights_sum_to_one")
def luong_general_sums(t: Trial) -> None:
    luong_sums(t, "general")


@check(LUONG, "concat_weights_sum_to_one")
def luong_concat_sums(t: Trial) -> None:
    luong_sums(t, "concat")


@check(LUONG, "dot_masked_keys_get_zero_weight")
def luong_dot_masked(t: Trial) -> None:
    luong_masked(t, "dot")


@check(LUONG, "general_masked_keys_get_zero_weight")
def luong_general_masked(t: Trial) -> None:
    luong_masked(t, "general")


@check(LUONG, "concat_masked_keys_get_zero_weight")
def luong_concat_masked(t: Trial) -> None:
    luong_masked(t, "concat")


@check(LUONG, "dot_context_is_weighted_sum_of_values")
def luong_dot_context(t: Trial) -> None:
    luong_context(t, "dot")


@check(LUONG, "general_context_is_weighted_sum_of_values")
def luong_general_context(t: Trial) -> None:
    luong_context(t, "general")


@check(LUONG, "concat_context_is_weighted_sum_of_values")
def luong_concat_context(t: Trial) -> None:
    luong_context(t, "concat")


@check(LUONG, "dot_matches_definition")
def luong_dot_definition(t: Trial) -> None:
    luong_definition(t, "dot")


@check(LUONG, "general_matches_definition")
def luong_general_definition(t: Trial) -> None:
    luong_definition(t, "general")


@check(LUONG, "concat_matches_definition")
def luong_concat_definition(t: Trial) -> None:
    luong_definition(t, "concat")


@check(LUONG, "general_rejects_missing_W")
def luong_general_missing(t: Trial) -> None:
    luong_missing(t, "general", ["W"])


@check(LUONG, "concat_rejects_missing_parameters")
def luong_concat_missing(t: Trial) -> None:
    luong_missing(t, "concat", ["W_c", "v"])
