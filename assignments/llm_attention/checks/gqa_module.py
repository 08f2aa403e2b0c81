"""``GroupedQueryAttention``'s structure and ``forward``: the submodules and their shapes, the
errors, the definition, the weights of each query head, masks, the default that is not causal,
which key/value head each query head reads, and the two ends (as many key/value heads as query
heads: multi-head attention; one: multi-query attention). The checks that need no reference are
public (the release's ``check.py``)."""

from __future__ import annotations

import numpy as np

from grader.checks.base import CheckFailed, Trial, close_mask, discrepancy
from grader.checks.calls import Step
from grader.checks.expect import expect_close, expect_raises, expect_shape
from grader.checks.inputs import random_mask
from grader.checks.modules import expect_grad, expect_linears, expect_masked, expect_param_grads, f32, lengths_mask

from . import check
from .gqa_support import (
    FORMULA,
    GQA,
    OTHER_SIZES,
    SIZES,
    causal,
    gqa_forward,
    gqa_name,
    gqa_pair,
    gqa_state,
    reference_gqa,
)

HEAD_FORMULA = "the definition softmax(Q_h K_{h // group}^T / sqrt(d_k)) of that query head"


@check(GQA, "has_required_submodules")
def gqa_submodules(t: Trial) -> None:
    for d_model, heads, kv_heads in (SIZES, OTHER_SIZES):
        d_kv = kv_heads * (d_model // heads)
        reply = t.module(d_model, heads, kv_heads, method=None)
        wanted = {"W_q": (d_model, d_model, True), "W_k": (d_model, d_kv, True),
                  "W_v": (d_model, d_kv, True), "W_o": (d_model, d_model, True)}
        expect_linears(reply, gqa_name((d_model, heads, kv_heads)), wanted)


@check(GQA, "rejects_invalid_head_counts")
def gqa_rejects(t: Trial) -> None:
    wrong = {(12, 5, 1): "d_model=12 is not divisible by num_heads=5",
             (12, 6, 4): "num_heads=6 is not divisible by num_kv_heads=4",
             (12, 4, 8): "num_heads=4 is not divisible by num_kv_heads=8",
             (12, 6, 0): "num_kv_heads=0 is below 1",
             (12, 0, 1): "num_heads=0 is below 1"}
    for sizes, why in wrong.items():
        expect_raises(t.module_raises(*sizes), "ValueError",
                      returned=f"{gqa_name(sizes)} built without an error, but {why}: raise ValueError",
                      other=f"{gqa_name(sizes)} raised {{raised}}; the contract asks for a ValueError "
                            f"when {why}")
    for sizes in ((12, 6, 3), (12, 6, 6), (12, 6, 1)):
        raised = t.module_raises(*sizes)
        if raised is not None:
            raise CheckFailed(f"{gqa_name(sizes)} raised {raised.describe()}, but these head counts are "
                              "valid (num_heads divides d_model, num_kv_heads divides num_heads)")


@check(GQA, "output_shapes")
def gqa_output_shape(t: Trial) -> None:
    x = f32(t, 2, 5, SIZES[0])
    reply, what = gqa_forward(t, SIZES, gqa_state(t, *SIZES), x)
    output, _ = gqa_pair(reply.outputs, what, SIZES[1], SIZES[2])
    expect_shape(output, x.shape, f"output returned by {what}")


@check(GQA, "weights_per_query_head")
def gqa_weights_shape(t: Trial) -> None:
    for sizes in (SIZES, OTHER_SIZES):
        x = f32(t, 1, 4, sizes[0])
        reply, what = gqa_forward(t, sizes, gqa_state(t, *sizes), x)
        gqa_pair(reply.outputs, what, sizes[1], sizes[2])


@check(GQA, "forward_matches_definition")
def gqa_matches(t: Trial) -> None:
    for sizes, batch, length in ((SIZES, 2, 5), (OTHER_SIZES, 1, 4)):
        state = gqa_state(t, *sizes)
        x = f32(t, batch, length, sizes[0])
        reply, what = gqa_forward(t, sizes, state, x)
        output, weights = gqa_pair(reply.outputs, what, sizes[1], sizes[2])
        expected = t.reference(reference_gqa, sizes, state, [x])["outputs"]
        expect_close(t, weights, expected[1], f"weights returned by {what}", HEAD_FORMULA)
        expect_close(t, output, expected[0], f"output returned by {what}", FORMULA)


@check(GQA, "weight_rows_sum_to_one")
def gqa_rows(t: Trial) -> None:
    state = gqa_state(t, *SIZES)
    x = f32(t, 2, 6, SIZES[0])
    reply, what = gqa_forward(t, SIZES, state, x)
    _, weights = gqa_pair(reply.outputs, what, SIZES[1], SIZES[2])
    expect_masked(t, weights, np.ones((6, 6), dtype=bool), f"the weights returned by {what}")


@check(GQA, "masked_weights_are_zero")
def gqa_masked(t: Trial) -> None:
    batch, length = 3, 6
    state = gqa_state(t, *SIZES)
    x = f32(t, batch, length, SIZES[0])
    for mask in (lengths_mask(t, batch, length)[:, None, None, :], causal(length),
                 random_mask(t.rng, (batch, SIZES[1], length, length))):
        reply, what = gqa_forward(t, SIZES, state, x, mask)
        _, weights = gqa_pair(reply.outputs, what, SIZES[1], SIZES[2])
        expect_masked(t, weights, mask, f"the weights returned by {what}")


@check(GQA, "mask_blocks_keys")
def gqa_mask(t: Trial) -> None:
    batch, length = 2, 5
    state = gqa_state(t, *SIZES)
    x = f32(t, batch, length, SIZES[0])
    for mask in (lengths_mask(t, batch, length)[:, None, None, :], causal(length)):
        reply, what = gqa_forward(t, SIZES, state, x, mask)
        output, weights = gqa_pair(reply.outputs, what, SIZES[1], SIZES[2])
        expected = t.reference(reference_gqa, SIZES, state, [x, mask])["outputs"]
        expect_masked(t, weights, mask, f"the weights returned by {what}")
        expect_close(t, weights, expected[1], f"weights returned by {what}",
                     "the definition softmax(Q_h K_{h // group}^T / sqrt(d_k)) over the keys the mask allows")
        expect_close(t, output, expected[0], f"output returned by {what}", FORMULA)


@check(GQA, "not_causal_without_mask")
def gqa_not_causal(t: Trial) -> None:
    length = 5
    state = gqa_state(t, *SIZES)
    x = f32(t, 2, length, SIZES[0])
    everything = np.ones((length, length), dtype=bool)
    # The same module twice: mask=None must attend as a mask that allows every key does.
    outputs = t.module_steps(*SIZES, state=state, steps=[Step("forward", (x,)), Step("forward", (x, everything))])
    what = f"{gqa_name(SIZES)}.forward(x) with mask=None"
    free, full = (gqa_pair(out, what, SIZES[1], SIZES[2]) for out in outputs)
    future = np.triu(np.ones((length, length), dtype=bool), 1)
    if not np.any(free[1][..., future]):
        raise CheckFailed(f"the weights returned by {what} are 0 above the diagonal, as if the module were "
                          "causal: with no mask every query attends to every position (causal only when "
                          "given a causal mask)")
    off = discrepancy(t, free[1], full[1])
    if off is not None:
        raise CheckFailed(f"the weights returned by {what} differ from those with a mask that allows every "
                          f"key: {off}; mask=None must attend to every position", off.margin)


def _head_weights(state: dict[str, np.ndarray], x: np.ndarray, heads: int, kv_heads: int) -> np.ndarray:
    """``(B, H, H_kv, L, L)``: the weights of query head h if it read key/value head g, every g."""
    d_k = x.shape[-1] // heads
    x64 = x.astype(np.float64)
    q = x64 @ state["W_q.weight"].T.astype(np.float64) + state["W_q.bias"]
    k = x64 @ state["W_k.weight"].T.astype(np.float64) + state["W_k.bias"]
    q = q.reshape(*x.shape[:2], heads, d_k).transpose(0, 2, 1, 3)[:, :, None]
    k = k.reshape(*x.shape[:2], kv_heads, d_k).transpose(0, 2, 1, 3)[:, None]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d_k)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return scores / scores.sum(axis=-1, keepdims=True)


@check(GQA, "query_head_reads_kv_head_h_div_group")
def gqa_groups(t: Trial) -> None:
    for sizes in (SIZES, OTHER_SIZES):
        _, heads, kv_heads = sizes
        group = heads // kv_heads
        state = gqa_state(t, *sizes)
        x = f32(t, 2, 5, sizes[0])
        reply, what = gqa_forward(t, sizes, state, x)
        _, weights = gqa_pair(reply.outputs, what, heads, kv_heads)
        every = _head_weights(state, x, heads, kv_heads)
        for h in range(heads):
            if close_mask(t, weights[:, h], every[:, h, h // group]).all():
                continue
            read = [g for g in range(kv_heads) if close_mask(t, weights[:, h], every[:, h, g]).all()]
            if read:
                raise CheckFailed(f"in {what}, query head {h} reads key/value head {read[0]}, not {h // group}: "
                                  f"query head h reads head h // group (group = {group}), so consecutive "
                                  "query heads share one, as repeat_interleave does"
                                  + (" (h % num_kv_heads, as repeat does, is the classic slip)"
                                     if read[0] == h % kv_heads else ""))
        for h in range(heads):
            expect_close(t, weights[:, h], every[:, h, h // group], f"the weights of query head {h} returned "
                         f"by {what}", f"softmax(Q_h K_g^T / sqrt(d_k)) with g = h // group = {h // group}")


@check(GQA, "equals_mha_when_as_many_kv_heads")
def gqa_mha(t: Trial) -> None:
    sizes = (SIZES[0], SIZES[1], SIZES[1])
    state = gqa_state(t, *sizes)
    x = f32(t, 2, 5, sizes[0])
    reply, what = gqa_forward(t, sizes, state, x, causal(5))
    output, weights = gqa_pair(reply.outputs, what, sizes[1], sizes[2])
    expected = t.reference(reference_gqa, sizes, state, [x, causal(5)])["outputs"]
    against = "multi-head attention (with num_kv_heads == num_heads, query head h reads head h)"
    expect_close(t, weights, expected[1], f"weights returned by {what}", against)
    expect_close(t, output, expected[0], f"output returned by {what}", against)


@check(GQA, "multi_query_with_one_kv_head")
def gqa_mqa(t: Trial) -> None:
    sizes = (SIZES[0], SIZES[1], 1)
    state = gqa_state(t, *sizes)
    x = f32(t, 2, 5, sizes[0])
    reply, what = gqa_forward(t, sizes, state, x)
    output, weights = gqa_pair(reply.outputs, what, sizes[1], sizes[2])
    expected = t.reference(reference_gqa, sizes, state, [x])["outputs"]
    against = "multi-query attention (every query head reads the one key/value head)"
    expect_close(t, weights, expected[1], f"weights returned by {what}", against)
    expect_close(t, output, expected[0], f"output returned by {what}", against)


@check(GQA, "gradients_flow")
def gqa_gradients(t: Trial) -> None:
    state = gqa_state(t, *SIZES)
    x = f32(t, 2, 4, SIZES[0])
    seeds = [f32(t, 2, 4, SIZES[0]), f32(t, 2, SIZES[1], 4, 4)]
    reply, what = gqa_forward(t, SIZES, state, x, causal(4), seeds)
    gqa_pair(reply.outputs, what, SIZES[1], SIZES[2])
    expected = t.reference(reference_gqa, SIZES, state, [x, causal(4)], (0,), seeds)
    expect_grad(t, (reply.input_grads or [None])[0], expected["input_grads"][0], "x")
    expect_param_grads(t, reply, expected["param_grads"])
