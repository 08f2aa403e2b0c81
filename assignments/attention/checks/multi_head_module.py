"""``MultiHeadAttention`` (part 2): its public example and its checks (built, fed and compared
as in ``bahdanau_module``; torch is imported lazily, by ``torch_support``).
``masked_weights_are_zero`` needs no reference, so it ships in the students' ``check.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import CheckFailed, ModuleReply, Trial, as_array
from grader.checks.expect import expect_close, expect_raises, expect_shape
from grader.checks.pictures import picture
from grader.records.results import Picture

from . import REGISTRY, check
from .example_support import QK, once, part_of, public_linear_state, public_rng
from .torch_support import (
    expect_grad,
    expect_linears,
    expect_masked,
    expect_param_grads,
    f32,
    lengths_mask,
    linear_state,
    output_pair,
    reference_module,
)

MHA = "MultiHeadAttention"
MHA_FORMULA = ("the definition W_o(concat_h softmax(Q_h K_h^T / sqrt(d_k)) V_h) with Q_h, K_h, V_h the "
               "features h*d_k ... (h+1)*d_k - 1 of W_q(query), W_k(key), W_v(value)")
HEAD_FORMULA = "the definition softmax(Q_h K_h^T / sqrt(d_k)) of that head"


def _mha_state(t: Trial, d_model: int) -> dict[str, np.ndarray]:
    state: dict[str, np.ndarray] = {}
    for name in ("W_q", "W_k", "W_v", "W_o"):
        state.update(linear_state(t, name, d_model, d_model, True))
    return state


def _mha_run(t: Trial, d_model: int, heads: int, batch: int, lq: int, lk: int, *,
             self_attention: bool = False, mask: np.ndarray | None = None,
             grads: bool = False) -> tuple[ModuleReply, dict[str, Any], str]:
    state = _mha_state(t, d_model)
    query = f32(t, batch, lq, d_model)
    key = query if self_attention else f32(t, batch, lk, d_model)
    value = query if self_attention else f32(t, batch, lk, d_model)
    args: list[Any] = [query, key, value] + ([mask] if mask is not None else [])
    seeds = [f32(t, batch, lq, d_model), f32(t, batch, heads, lq, lk)] if grads else None
    grad_inputs = (0, 1, 2) if grads else ()
    reply = t.module(d_model, heads, state=state, args=args, grad_inputs=grad_inputs,
                     grad_outputs=seeds)
    expected = t.reference(reference_module, MHA, (d_model, heads), state, "forward", args,
                           grad_inputs, seeds)
    kind = "self-attention" if self_attention else "cross-attention"
    shape = f"mask of shape {tuple(mask.shape)}, " if mask is not None else ""
    what = (f"{MHA}({d_model}, {heads}).forward ({kind}, {shape}B={batch}, Lq={lq}, Lk={lk})")
    return reply, expected, what


def _mha_outputs(reply: ModuleReply, what: str, batch: int, heads: int, lq: int, lk: int,
                 d_model: int, *, weights_too: bool = True) -> tuple[np.ndarray, np.ndarray]:
    output, weights = output_pair(reply, what, ("output", "weights"))
    expect_shape(output, (batch, lq, d_model), f"output returned by {what}")
    if not weights_too:
        return output, weights
    if weights.shape == (batch, lq, lk) and heads > 1:
        raise CheckFailed(f"weights returned by {what} has shape {weights.shape}: it looks "
                          "averaged over the heads; return every head's weights, shape "
                          f"(B, H, Lq, Lk) = {(batch, heads, lq, lk)}")
    expect_shape(weights, (batch, heads, lq, lk), f"weights returned by {what}")
    return output, weights


@REGISTRY.example("MultiHeadAttention")
def mha_example(t: Trial) -> Sequence[Picture]:
    rng = public_rng()
    d_model, heads, length = 16, 4, 5  # the notebook's five tokens, 16 features, 4 heads
    state: dict[str, np.ndarray] = {}
    for name in ("W_q", "W_k", "W_v", "W_o"):
        state.update(public_linear_state(rng, name, d_model, d_model, True))
    x = rng.standard_normal((1, length, d_model)).astype(np.float32)
    mask = np.tril(np.ones((length, length), dtype=bool))
    args = [x, x, x, mask]
    expected = t.reference(reference_module, "MultiHeadAttention", (d_model, heads), state, "forward",
                           args)["outputs"][1]
    what = f"weights of MultiHeadAttention({d_model}, {heads})(x, x, x, causal mask)"
    answer = once(lambda: output_pair(t.module(d_model, heads, state=state, args=args), what,
                                       ("output", "weights"))[1])
    shape = (1, heads, length, length)
    return [picture(t, f"head {h}: {what}", "weights", expected[0, h], part_of(answer, (0, h), shape, what), **QK)
            for h in range(heads)]


@check(MHA, "has_required_submodules")
def mha_submodules(t: Trial) -> None:
    reply = t.module(12, 3, method=None)
    wanted = {name: (12, 12, True) for name in ("W_q", "W_k", "W_v", "W_o")}
    expect_linears(reply, f"{MHA}(12, 3)", wanted)


@check(MHA, "rejects_indivisible_d_model")
def mha_rejects(t: Trial) -> None:
    for d_model, heads in [(10, 3), (8, 3)]:
        expect_raises(t.module_raises(d_model, heads), "ValueError",
                      returned=f"{MHA}({d_model}, {heads}) built without an error, but "
                               f"d_model={d_model} is not divisible by num_heads={heads}: raise ValueError",
                      other=f"{MHA}({d_model}, {heads}) raised {{raised}}; the contract asks for a "
                            "ValueError when d_model is not divisible by num_heads")


@check(MHA, "split_and_combine_heads")
def mha_split_combine(t: Trial) -> None:
    d_model, heads, batch, length = 12, 3, 2, 5
    d_k = d_model // heads
    x = f32(t, batch, length, d_model)
    split = as_array(t.module(d_model, heads, method="split_heads", args=(x,)).outputs,
                     "split_heads(x)")
    expect_shape(split, (batch, heads, length, d_k),
                 f"split_heads(x) for x of shape {x.shape} and H={heads}")
    want = x.reshape(batch, length, heads, d_k).transpose(0, 2, 1, 3)
    for h in range(heads):
        expect_close(t, split[:, h], want[:, h], f"split_heads(x)[:, {h}]",
                     f"features {h * d_k} ... {(h + 1) * d_k - 1} of x (head {h} holds its own "
                     "features at every position)")
    y = f32(t, batch, heads, length, d_k)
    combined = as_array(t.module(d_model, heads, method="combine_heads", args=(y,)).outputs,
                        "combine_heads(y)")
    expect_shape(combined, (batch, length, d_model), f"combine_heads(y) for y of shape {y.shape}")
    expect_close(t, combined, y.transpose(0, 2, 1, 3).reshape(batch, length, d_model),
                 "combine_heads(y)", "head h's features placed at h*d_k ... (h+1)*d_k - 1, in "
                 "head order, position by position")
    back = as_array(t.module(d_model, heads, method="combine_heads",
                             args=(np.ascontiguousarray(split),)).outputs,
                    "combine_heads(split_heads(x))")
    expect_close(t, back, x, "combine_heads(split_heads(x))", "x (a round trip)")


@check(MHA, "forward_matches_definition")
def mha_forward(t: Trial) -> None:
    cases = [(8, 2, 2, 5, 5, True), (12, 3, 2, 3, 6, False)]
    for d_model, heads, batch, lq, lk, self_attention in cases:
        reply, expected, what = _mha_run(t, d_model, heads, batch, lq, lk,
                                         self_attention=self_attention)
        output, _ = _mha_outputs(reply, what, batch, heads, lq, lk, d_model, weights_too=False)
        expect_close(t, output, expected["outputs"][0], f"output returned by {what}", MHA_FORMULA)


@check(MHA, "per_head_weights")
def mha_weights(t: Trial) -> None:
    d_model, heads, batch, lq, lk = 12, 4, 2, 4, 6
    reply, expected, what = _mha_run(t, d_model, heads, batch, lq, lk)
    _, weights = _mha_outputs(reply, what, batch, heads, lq, lk, d_model)
    for h in range(heads):
        expect_close(t, weights[:, h], expected["outputs"][1][:, h],
                     f"the weights of head {h} returned by {what}", HEAD_FORMULA)


@check(MHA, "mask_blocks_keys")
def mha_mask(t: Trial) -> None:
    d_model, heads, batch = 8, 2, 3
    padding = lengths_mask(t, batch, 6)[:, None, None, :]
    causal = np.tril(np.ones((5, 5), dtype=bool))
    for lq, lk, mask, self_attention in [(4, 6, padding, False), (5, 5, causal, True)]:
        reply, expected, what = _mha_run(t, d_model, heads, batch, lq, lk, mask=mask,
                                         self_attention=self_attention)
        output, weights = _mha_outputs(reply, what, batch, heads, lq, lk, d_model)
        expect_masked(t, weights, mask, "weights")
        expect_close(t, weights, expected["outputs"][1], f"weights returned by {what}",
                     "the definition softmax(Q_h K_h^T / sqrt(d_k)) over the keys the mask allows")
        expect_close(t, output, expected["outputs"][0], f"output returned by {what}", MHA_FORMULA)


@check(MHA, "gradients_flow")
def mha_gradients(t: Trial) -> None:
    d_model, heads, batch, lq, lk = 8, 2, 2, 3, 5
    reply, expected, what = _mha_run(t, d_model, heads, batch, lq, lk, grads=True)
    _mha_outputs(reply, what, batch, heads, lq, lk, d_model)
    grad_in = reply.input_grads or [None, None, None]
    for i, name in enumerate(("query", "key", "value")):
        expect_grad(t, grad_in[i], expected["input_grads"][i], name)
    expect_param_grads(t, reply, expected["param_grads"])


@check(MHA, "masked_weights_are_zero")
def mha_masked_weights(t: Trial) -> None:
    d_model, heads, batch = 8, 2, 3
    padding = lengths_mask(t, batch, 6)[:, None, None, :]
    causal = np.tril(np.ones((5, 5), dtype=bool))
    for lq, lk, mask in [(4, 6, padding), (5, 5, causal)]:
        state = _mha_state(t, d_model)
        query = f32(t, batch, lq, d_model)
        key, value = (query, query) if lq == lk else (f32(t, batch, lk, d_model), f32(t, batch, lk, d_model))
        reply = t.module(d_model, heads, state=state, args=[query, key, value, mask])
        what = f"{MHA}({d_model}, {heads}).forward (mask of shape {tuple(mask.shape)}, B={batch}, Lq={lq}, Lk={lk})"
        _, weights = _mha_outputs(reply, what, batch, heads, lq, lk, d_model)
        expect_masked(t, weights, mask, "weights")
