"""``scaled_dot_product_attention`` (part 1): its public example, its worked example and its
hidden checks (see ``numpy_support`` for what every NumPy check does).

The worked example is public: fixed inputs, and the expected values written here as data
(``tests/assignments/attention/test_worked_examples.py`` recomputes them from the reference, so they cannot
drift). It needs no reference at grading time, so it ships in the students' ``check.py`` and
catches the classic slip (a missing 1/sqrt(d_k)) before a student submits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, close_mask, discrepancy, fmt_index
from grader.checks.expect import expect_close, expect_finite, expect_shape
from grader.checks.inputs import random_mask
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY, check
from .example_support import QK, student_reply
from .numpy_support import (
    attention_pair,
    batch_where,
    describe_shapes,
    draw_qkv,
    expect_no_masked_out_row,
    expect_outputs,
    expect_real,
    expect_sums_to_one,
    first_true,
    mask_text,
    masked_args,
    num,
)

X3 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # "the cat sat", the notebook's three tokens
CAUSAL3 = np.tril(np.ones((3, 3), dtype=bool))


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


@REGISTRY.example("scaled_dot_product_attention")
def sdpa_example(t: Trial) -> Sequence[Picture]:
    full = t.reference(ref.scaled_dot_product_attention, X3, X3, X3)[1]
    causal = t.reference(ref.scaled_dot_product_attention, X3, X3, X3, mask=CAUSAL3)[1]
    return [
        picture(t, "weights of scaled_dot_product_attention(X, X, X)", "weights", full,
                lambda: student_reply(t, X3, X3, X3, part=1), **QK),
        picture(t, "weights with the causal mask", "weights", causal,
                lambda: student_reply(t, X3, X3, X3, mask=CAUSAL3, part=1), **QK),
    ]


@check("scaled_dot_product_attention", "worked_example")
def sdpa_worked_example(t: Trial) -> None:
    X = np.array(SDPA_X)
    causal = np.tri(3, dtype=bool)
    cases = [("the worked example (Q = K = V = X, d_k = 2)", None, SDPA_WEIGHTS),
             ("the worked example with the causal mask", causal, SDPA_CAUSAL_WEIGHTS)]
    calls = [Args(X, X, X) if mask is None else Args(X, X, X, mask=mask) for _, mask, _ in cases]
    for (label, mask, expected), reply in zip(cases, t.call_each(calls), strict=True):
        what = f"attention on {label}"
        out, w = attention_pair(reply, what)
        expect_shape(w, (3, 3), f"the weights of {what}")
        if mask is not None:
            expect_no_masked_out_row(w, mask, f"the weights of {what}")
        off = discrepancy(t, w, np.array(expected)) if w.dtype.kind == "f" else None
        if off is not None and close_mask(t, w, np.array(SDPA_UNSCALED_WEIGHTS)).all():
            raise CheckFailed(f"the weights of {what} equal softmax(Q K^T): the 1/sqrt(d_k) scale is missing "
                              f"(they differ from the definition {off.sizes()})", off.margin)
        expect_close(t, w, np.array(expected), f"the weights of {what}", "softmax(Q K^T / sqrt(d_k))")
        expect_close(t, out, np.array(expected) @ X, f"the output of {what}", "weights @ V")


# Only ``leading_batch_dims`` and the broadcast mask of ``masked_weights_are_zero`` use batched
# input, so that a mistake with batches (``K.T``) costs those checks and not every one.


@check("scaled_dot_product_attention", "output_and_weight_shapes")
def sdpa_shapes(t: Trial) -> None:
    dims = [(3, 5, 4, 6), (1, 1, 2, 3), (4, 2, 8, 3)]
    inputs = [draw_qkv(t.rng, (), *d) for d in dims]
    for (lq, lk, _, dv), (Q, K, V), reply in zip(dims, inputs, t.call_each([Args(*qkv) for qkv in inputs]),
                                                  strict=True):
        expect_outputs(reply, f"attention with {describe_shapes(Q, K, V)}", ((lq, dv), (lq, lk)))


@check("scaled_dot_product_attention", "matches_definition")
def sdpa_definition(t: Trial) -> None:
    inputs = [draw_qkv(t.rng, (), *d) for d in [(4, 6, 8, 5), (5, 5, 4, 4)]]
    for (Q, K, V), reply in zip(inputs, t.call_each([Args(*qkv) for qkv in inputs]), strict=True):
        ref_out, ref_w = t.reference(ref.scaled_dot_product_attention, Q, K, V)
        what = f"attention with {describe_shapes(Q, K, V)}"
        out, w = attention_pair(reply, what)
        expect_close(t, w, ref_w, f"the weights of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) over the keys")
        expect_close(t, out, ref_out, f"the output of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) @ V")


@check("scaled_dot_product_attention", "weight_rows_sum_to_one")
def sdpa_rows_sum(t: Trial) -> None:
    rng = t.rng
    cases = [(draw_qkv(rng, (), 5, 7, 8, 3, scale=1.5), None),
             (draw_qkv(rng, (), 3, 4, 4, 2, scale=1.5), None),
             (draw_qkv(rng, (), 4, 6, 4, 3, scale=1.5), random_mask(rng, (4, 6))),
             (draw_qkv(rng, (), 3, 5, 4, 2, scale=1.5), random_mask(rng, (1, 5)))]
    for ((Q, K, V), mask), reply in zip(cases, t.call_each([masked_args(qkv, mask) for qkv, mask in cases]),
                                        strict=True):
        what = f"attention with {describe_shapes(Q, K, V)}" + mask_text(mask)
        _, w = attention_pair(reply, what)
        expect_shape(w, Q.shape[:-1] + (K.shape[-2],), f"the weights of {what}")
        expect_sums_to_one(t, w, f"the weights of {what}")


@check("scaled_dot_product_attention", "scaled_by_sqrt_dk")
def sdpa_scale(t: Trial) -> None:
    """With d_k = 16 (and 9), Q K^T of standard-normal Q and K has entries of spread
    sqrt(d_k) = 4 (3): leaving out the 1/sqrt(d_k) sharpens every row of weights by that
    factor, dividing by d_k flattens it by the same factor, and both land far outside the
    tolerance. Lq, Lk and d_v all differ from d_k, so scaling by the wrong dimension shows
    too. The message names the scale the weights do have when it is one of the two slips."""
    dims = [(3, 5, 16, 2), (4, 6, 9, 3)]
    inputs = [draw_qkv(t.rng, (), *d) for d in dims]
    for (lq, lk, dk, _), (Q, K, V), reply in zip(dims, inputs, t.call_each([Args(*qkv) for qkv in inputs]),
                                                 strict=True):
        _, ref_w = t.reference(ref.scaled_dot_product_attention, Q, K, V)
        what = f"attention with {describe_shapes(Q, K, V)} (d_k = {dk})"
        _, w = attention_pair(reply, what)
        expect_shape(w, (lq, lk), f"the weights of {what}")
        expect_real(w, f"the weights of {what}")
        off = discrepancy(t, w, ref_w)
        if off is None:
            continue
        scores = Q @ K.T
        diagnoses = [
            (ref.softmax(scores), "softmax(Q K^T): the 1/sqrt(d_k) scale is missing"),
            (ref.softmax(scores / dk), "softmax(Q K^T / d_k): divide by sqrt(d_k), not by d_k"),
        ]
        for candidate, why in diagnoses:
            if close_mask(t, w, candidate).all():
                raise CheckFailed(f"the weights of {what} equal {why} (they differ from the "
                                  f"definition {off.sizes()})", off.margin)
        expect_close(t, w, ref_w, f"the weights of {what}", "the definition softmax(Q K^T / sqrt(d_k))")


def _expect_masked_zero(w: np.ndarray, allowed: np.ndarray, what: str, blocker: str) -> None:
    allowed = np.broadcast_to(allowed, w.shape)
    expect_real(w, what)
    bad = ~allowed & (w != 0)
    if bad.any():
        first = first_true(bad)
        q, k = first[-2:]
        raise CheckFailed(f"in {what}, query {q}{batch_where(first, w.ndim - 2)} gives weight "
                          f"{num(w[first])} to key {k}, which {blocker}; a masked weight must "
                          f"be exactly 0")


@check("scaled_dot_product_attention", "masked_weights_are_zero")
def sdpa_masked(t: Trial) -> None:
    rng = t.rng
    cases = [(draw_qkv(rng, (), 4, 6, 4, 2, scale=1.5), random_mask(rng, (4, 6))),
             (draw_qkv(rng, (), 3, 5, 4, 3, scale=1.5), random_mask(rng, (1, 5))),
             (draw_qkv(rng, (2,), 3, 5, 4, 3, scale=1.5), random_mask(rng, (2, 1, 5)))]
    for ((Q, K, V), mask), reply in zip(cases, t.call_each([masked_args(qkv, mask) for qkv, mask in cases]),
                                        strict=True):
        what = f"attention with {describe_shapes(Q, K, V)}, mask {mask.shape}"
        _, w = attention_pair(reply, what)
        expect_shape(w, Q.shape[:-1] + (K.shape[-2],), f"the weights of {what}")
        _expect_masked_zero(w, mask, f"the weights of {what}",
                            "the mask blocks (False = may not attend)")


@check("scaled_dot_product_attention", "causal_mask_blocks_future")
def sdpa_causal(t: Trial) -> None:
    inputs = [draw_qkv(t.rng, (), length, length, dk, 2, scale=1.5) for length, dk in [(5, 4), (4, 3), (1, 2)]]
    masks = [np.tri(len(Q), dtype=bool) for Q, _, _ in inputs]
    replies = t.call_each([masked_args(qkv, mask) for qkv, mask in zip(inputs, masks, strict=True)])
    for (Q, K, V), mask, reply in zip(inputs, masks, replies, strict=True):
        length = len(Q)
        what = f"attention with {describe_shapes(Q, K, V)} and a causal mask {mask.shape}"
        _, w = attention_pair(reply, what)
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
    cases = [(draw_qkv(rng, (3,), 4, 5, 2, 3), None), (draw_qkv(rng, (2, 3), 4, 5, 3, 2), None),
             (draw_qkv(rng, (2, 2), 3, 4, 5, 2), random_mask(rng, (2, 1, 3, 4)))]
    calls = []  # each batch, then each of its elements alone
    for (Q, K, V), mask in cases:
        calls.append(masked_args((Q, K, V), mask))
        full_mask = None if mask is None else np.broadcast_to(mask, Q.shape[:-1] + K.shape[-2:-1])
        calls += [masked_args((Q[index], K[index], V[index]), None if full_mask is None else np.array(full_mask[index]))
                  for index in np.ndindex(*Q.shape[:-2])]
    replies = t.call_each(calls)
    for (Q, K, V), mask in cases:
        batch, (lq, _), (lk, dv) = Q.shape[:-2], Q.shape[-2:], V.shape[-2:]
        what = f"attention with batched {describe_shapes(Q, K, V)}" + mask_text(mask)
        out, w = attention_pair(next(replies), what)
        expect_shape(out, batch + (lq, dv), f"the output of {what}")
        expect_shape(w, batch + (lq, lk), f"the weights of {what}")
        for index in np.ndindex(*batch):
            alone = f"attention with Q{fmt_index(index)}, K{fmt_index(index)}, V{fmt_index(index)}"
            one_out, one_w = attention_pair(next(replies), alone)
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
    inputs = [draw_qkv(t.rng, (), *d) for d in dims]
    for (lq, lk, _, dv), (Q, K, V), reply in zip(dims, inputs, t.call_each([Args(*qkv) for qkv in inputs]),
                                                 strict=True):
        ref_out, ref_w = t.reference(ref.scaled_dot_product_attention, Q, K, V)
        what = f"attention with {describe_shapes(Q, K, V)} (Lq = {lq}, Lk = {lk})"
        out, w = attention_pair(reply, what)
        expect_shape(w, (lq, lk), f"the weights of {what}")
        expect_shape(out, (lq, dv), f"the output of {what}")
        expect_close(t, w, ref_w, f"the weights of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) over the Lk keys, one row for "
                     "each of the Lq queries")
        expect_close(t, out, ref_out, f"the output of {what}",
                     "the definition softmax(Q K^T / sqrt(d_k)) @ V")
