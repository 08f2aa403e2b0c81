"""Hidden checks for part 2 (PyTorch modules).

The student's module is built and run in the sandbox (``Trial.module``); inputs are float32
arrays drawn from the trial's rng (masks are bool) and the weights are copied in by
state-dict key. The reference runs in float64 torch on the same values with the same weights.

Neither this module nor ``torch_support`` imports torch or the torch reference at import
time: the checks package must import in environments without torch. ``torch_support``
imports both when a check first needs them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks.base import (
    CheckFailed,
    ModuleReply,
    Trial,
    as_array,
    close_mask,
    discrepancy,
    expect_close,
    expect_floating,
    expect_shape,
)
from grader.checks.expect import expect_raises
from grader.checks.inputs import random_mask
from reference import attention_numpy as ref_np

from . import check
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
    sin_cos_swapped,
)

# ---- BahdanauAttention ---------------------------------------------------------------------

BAHDANAU = "BahdanauAttention"
BAH_DIMS = (5, 6, 4)  # query_dim, key_dim, attn_dim: all different, so swaps show
BAH_FORMULA = ("the definition weights = softmax_j(v(tanh(W_q(query) + W_k(keys[:, j])))) and "
               "context = sum_j weights[:, j] * keys[:, j]")


def _bahdanau_state(t: Trial) -> dict[str, np.ndarray]:
    dq, dk, da = BAH_DIMS
    return {**linear_state(t, "W_q", dq, da, False), **linear_state(t, "W_k", dk, da, False),
            **linear_state(t, "v", da, 1, False)}


def _bahdanau_case(t: Trial, batch: int, lk: int, mask: np.ndarray | None = None,
                   grads: bool = False) -> None:
    dq, dk, _ = BAH_DIMS
    state = _bahdanau_state(t)
    query, keys = f32(t, batch, dq), f32(t, batch, lk, dk)
    args: list[Any] = [query, keys] + ([mask] if mask is not None else [])
    seeds = [f32(t, batch, dk), f32(t, batch, lk)] if grads else None
    grad_inputs = (0, 1) if grads else ()
    what = f"forward(query, keys{', mask' if mask is not None else ''}) with B={batch}, Lk={lk}"
    reply = t.module(*BAH_DIMS, state=state, args=args, grad_inputs=grad_inputs, grad_outputs=seeds)
    expected = t.reference(reference_module, BAHDANAU, BAH_DIMS, state, "forward", args,
                           grad_inputs, seeds)
    context, weights = output_pair(reply, what, ("context", "weights"))
    expect_shape(weights, (batch, lk), f"weights returned by {what}")
    expect_shape(context, (batch, dk), f"context returned by {what}")
    if mask is not None:
        expect_masked(t, weights, mask, "weights")
    expect_close(t, weights, expected["outputs"][1], f"weights returned by {what}", BAH_FORMULA)
    expect_close(t, context, expected["outputs"][0], f"context returned by {what}", BAH_FORMULA)
    if grads:
        grad_in = reply.input_grads or [None, None]
        expect_grad(t, grad_in[0], expected["input_grads"][0], "query")
        expect_grad(t, grad_in[1], expected["input_grads"][1], "keys")
        expect_param_grads(t, reply, expected["param_grads"])


@check(BAHDANAU, "has_required_submodules")
def bahdanau_submodules(t: Trial) -> None:
    dq, dk, da = BAH_DIMS
    reply = t.module(dq, dk, da, method=None)
    expect_linears(reply, f"{BAHDANAU}({dq}, {dk}, {da})",
                    {"W_q": (dq, da, False), "W_k": (dk, da, False), "v": (da, 1, False)})


@check(BAHDANAU, "forward_matches_definition")
def bahdanau_forward(t: Trial) -> None:
    for batch, lk in [(3, 7), (1, 1), (2, 4)]:
        _bahdanau_case(t, batch, lk)


@check(BAHDANAU, "mask_zeroes_weights")
def bahdanau_mask(t: Trial) -> None:
    _bahdanau_case(t, 4, 6, mask=lengths_mask(t, 4, 6))
    _bahdanau_case(t, 3, 7, mask=random_mask(t.rng, (3, 7)))


@check(BAHDANAU, "gradients_flow")
def bahdanau_gradients(t: Trial) -> None:
    _bahdanau_case(t, 3, 5, grads=True)


# ---- MultiHeadAttention --------------------------------------------------------------------

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


# ---- PositionalEncoding --------------------------------------------------------------------

PE = "PositionalEncoding"
PE_FORMULA = "PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model))"


def _find_pe(reply: ModuleReply) -> tuple[int, ...] | None:
    if "pe" in reply.buffers:
        return reply.buffers["pe"][0]
    if "pe" in reply.parameters:
        return reply.parameters["pe"][0]
    return None


@check(PE, "pe_is_a_buffer")
def pe_buffer(t: Trial) -> None:
    for d_model, max_len in [(16, 5000), (10, 12)]:
        where = f"{PE}({d_model}, {max_len})"
        reply = t.module(d_model, max_len, method=None, fetch=["pe"])
        if "pe" in reply.parameters:
            raise CheckFailed(f"in {where}, pe is a Parameter (it is in parameters()) and would be "
                              "trained; register it with register_buffer")
        if "pe" not in reply.buffers:
            have = ", ".join(sorted(reply.buffers)) or "none"
            raise CheckFailed(f"{where} has no buffer named pe (its buffers: {have}); register "
                              "the table with self.register_buffer('pe', ...)")
        if "pe" not in reply.state_dict or "pe" not in reply.fetched:
            raise CheckFailed(f"in {where}, pe is not in state_dict(): it was registered with "
                              "persistent=False; the contract asks for a buffer saved with the "
                              "module")
        shape = reply.buffers["pe"][0]
        if shape != (1, max_len, d_model):
            raise CheckFailed(f"the buffer pe of {where} has shape {shape}; the contract asks for "
                              f"(1, max_len, d_model) = {(1, max_len, d_model)}")
        pe = as_array(reply.fetched["pe"], "the buffer pe")
        expect_floating(pe, "the buffer pe")
        expect_shape(pe, (1, max_len, d_model), f"the buffer pe of {where}")
        table = t.reference(ref_np.positional_encoding, max_len, d_model)
        off = discrepancy(t, pe[0], table)
        if off is not None and close_mask(t, pe[0], sin_cos_swapped(table)).all():
            raise CheckFailed(f"the buffer pe of {where} has cos on the even features and sin "
                              "on the odd ones; the contract puts sin on even features (2i) "
                              f"and cos on odd features (2i+1) (it differs {off.sizes()})", off.margin)
        expect_close(t, pe[0], table, f"the buffer pe[0] of {where}", f"the formula {PE_FORMULA}")


@check(PE, "forward_adds_encoding")
def pe_forward(t: Trial) -> None:
    d_model, max_len, batch = 8, 20, 2
    table = t.reference(ref_np.positional_encoding, max_len, d_model)[None]
    for length in (1, 6, max_len):
        x = f32(t, batch, length, d_model)
        reply = t.module(d_model, max_len, args=(x,), fetch=["pe"])
        # Compare with the student's own table (its values are pe_is_a_buffer's business).
        own = reply.fetched.get("pe")
        pe = as_array(own, "the buffer pe") if own is not None else table
        pe = pe if pe.shape == (1, max_len, d_model) else table
        out = as_array(reply.outputs, f"forward(x) for x of shape {x.shape}")
        expect_floating(out, "forward(x)")
        expect_close(t, out, x.astype(np.float64) + pe[:, :length].astype(np.float64),
                     f"forward(x) for x of shape {x.shape}", "x + pe[:, :L] (L = x.size(1))")


@check(PE, "default_max_len")
def pe_default_max_len(t: Trial) -> None:
    d_model = 8
    reply = t.module(d_model, method=None)
    shape = _find_pe(reply)
    if shape is None:
        # No table to read the length from: it must at least encode 5000 positions.
        x = np.zeros((1, 5000, d_model), dtype=np.float32)
        out = as_array(t.module(d_model, args=(x,)).outputs, "forward(x)")
        expect_shape(out, x.shape, f"{PE}({d_model}).forward(x) for x of shape {x.shape}")
        return
    if len(shape) < 2 or shape[-2] != 5000:
        raise CheckFailed(f"{PE}({d_model}) holds pe of shape {shape}: the default max_len "
                          "should be 5000 (positions 0 .. 4999)")
