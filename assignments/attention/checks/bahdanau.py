"""``bahdanau_attention`` (part 1): its public example and its hidden checks (see
``numpy_support`` for what every NumPy check does). The module ``BahdanauAttention`` of part 2
is ``bahdanau_module``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial
from grader.checks.expect import expect_close, expect_shape
from grader.checks.inputs import random_mask
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY, check
from .example_support import student_reply
from .numpy_support import (
    attention_pair,
    expect_outputs,
    expect_real,
    expect_sums_to_one,
    first_true,
    in_dtype_of,
    mask_text,
    masked_args,
    num,
)


@REGISTRY.example("bahdanau_attention")
def bahdanau_example(t: Trial) -> Sequence[Picture]:
    rng = np.random.default_rng(2)  # the notebook's example
    query, keys = rng.standard_normal((2, 3)), rng.standard_normal((2, 4, 5))
    w_q, w_k, v = rng.standard_normal((3, 6)), rng.standard_normal((5, 6)), rng.standard_normal(6)
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    expected = t.reference(ref.bahdanau_attention, query, keys, w_q, w_k, v, mask=mask)[1]
    return [picture(t, "weights of bahdanau_attention(query, keys, W_q, W_k, v, mask) (B = 2, Lk = 4)",
                    "weights", expected, lambda: student_reply(t, query, keys, w_q, w_k, v, mask=mask, part=1),
                    rows="batch element", columns="key")]


def _bahdanau_inputs(rng: np.random.Generator, b: int, lk: int, dq: int, dk: int,
                     da: int) -> tuple[np.ndarray, ...]:
    return (rng.normal(size=(b, dq)), rng.normal(size=(b, lk, dk)),
            rng.normal(size=(dq, da)) * 1.5 / np.sqrt(dq),
            rng.normal(size=(dk, da)) * 1.5 / np.sqrt(dk),
            rng.normal(size=(da,)))


def _bahdanau_what(args: Sequence[np.ndarray], mask: np.ndarray | None = None) -> str:
    query, keys = args[0], args[1]
    text = f"bahdanau_attention with query {query.shape}, keys {keys.shape}"
    return text + f", d_a = {args[4].shape[0]}" + mask_text(mask)


def _bahdanau(reply: Any, args: Sequence[np.ndarray],
              mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    what = _bahdanau_what(args, mask)
    ctx, w = attention_pair(reply, what, first="context")
    return ctx, w, what


@check("bahdanau_attention", "output_shapes")
def bahdanau_shapes(t: Trial) -> None:
    dims = [(3, 5, 4, 6, 7), (1, 1, 2, 3, 4), (2, 4, 3, 3, 5)]
    inputs = [_bahdanau_inputs(t.rng, *d) for d in dims]
    for (b, lk, _, dk, _), args, reply in zip(dims, inputs, t.call_each([Args(*a) for a in inputs]),
                                              strict=True):
        expect_outputs(reply, _bahdanau_what(args), ((b, dk), (b, lk)), first="context")


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
    cases.append((_bahdanau_inputs(rng, 3, 6, 4, 3, 5), random_mask(rng, (3, 6))))
    for (args, mask), reply in zip(cases, t.call_each([masked_args(a, m) for a, m in cases]), strict=True):
        ctx, w, what = _bahdanau(reply, args, mask)
        expect_shape(w, args[1].shape[:2], f"the weights of {what}")
        expect_sums_to_one(t, w, f"the weights of {what}", slices="batch element")


@check("bahdanau_attention", "masked_keys_get_zero_weight")
def bahdanau_masked(t: Trial) -> None:
    cases = []
    for b, lk, dq, dk, da in [(3, 6, 4, 5, 6), (2, 4, 3, 3, 4)]:
        args = _bahdanau_inputs(t.rng, b, lk, dq, dk, da)
        cases.append((args, random_mask(t.rng, (b, lk))))
    for (args, mask), reply in zip(cases, t.call_each([masked_args(a, m) for a, m in cases]), strict=True):
        b, lk = mask.shape
        _, w, what = _bahdanau(reply, args, mask)
        expect_shape(w, (b, lk), f"the weights of {what}")
        expect_real(w, f"the weights of {what}")
        bad = ~mask & (w != 0)
        if bad.any():
            i, j = first_true(bad)
            raise CheckFailed(f"in the weights of {what}, batch element {i} gives weight "
                              f"{num(w[i, j])} to key {j}, which the mask blocks; a masked key "
                              f"must get weight exactly 0")


@check("bahdanau_attention", "context_is_weighted_sum_of_keys")
def bahdanau_context(t: Trial) -> None:
    rng = t.rng
    cases = [(_bahdanau_inputs(rng, 3, 5, 4, 6, 7), None),
             (_bahdanau_inputs(rng, 2, 6, 3, 4, 5), random_mask(rng, (2, 6)))]
    for (args, mask), reply in zip(cases, t.call_each([masked_args(a, m) for a, m in cases]), strict=True):
        keys = args[1]
        ctx, w, what = _bahdanau(reply, args, mask)
        expect_shape(w, keys.shape[:2], f"the weights of {what}")
        expect_shape(ctx, (keys.shape[0], keys.shape[2]), f"the context of {what}")
        expect_real(w, f"the weights of {what}")
        from_weights = np.einsum("bj,bjd->bd", w.astype(np.float64), keys)
        expect_close(t, ctx, in_dtype_of(ctx, from_weights), f"the context of {what}",
                     "sum_j weights[b, j] * keys[b, j] computed from your own weights")
