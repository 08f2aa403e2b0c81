"""``BahdanauAttention`` (part 2): its public example and its checks. The function
``bahdanau_attention`` of part 1 is ``bahdanau``.

The student's module is built and run in the sandbox (``Trial.module``); inputs are float32
arrays drawn from the trial's rng (masks are bool) and the weights are copied in by
state-dict key. The reference runs in float64 torch on the same values with the same weights.
``masked_keys_get_zero_weight`` needs no reference (the weights are exactly 0 where the mask
blocks and sum to 1 over the keys it allows), so it ships in the students' ``check.py``.

Like every torch module's checks, this module imports neither torch nor the torch reference:
the checks package must import in environments without torch. ``torch_support`` imports both
when a check first needs them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import Trial
from grader.checks.expect import expect_close, expect_shape
from grader.checks.inputs import random_mask
from grader.checks.pictures import picture
from grader.records.results import Picture

from . import REGISTRY, check
from .example_support import public_linear_state, public_rng
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


@REGISTRY.example("BahdanauAttention")
def bahdanau_module_example(t: Trial) -> Sequence[Picture]:
    rng = public_rng()
    dims = (3, 4, 6)  # the notebook's query_dim, key_dim, attn_dim
    state = {**public_linear_state(rng, "W_q", 3, 6, False), **public_linear_state(rng, "W_k", 4, 6, False),
             **public_linear_state(rng, "v", 6, 1, False)}
    query = rng.standard_normal((2, 3)).astype(np.float32)
    keys = rng.standard_normal((2, 5, 4)).astype(np.float32)
    mask = np.array([[True, True, True, False, False], [True, True, True, True, True]])
    args = [query, keys, mask]
    expected = t.reference(reference_module, "BahdanauAttention", dims, state, "forward", args)["outputs"][1]
    what = "BahdanauAttention(3, 4, 6).forward(query, keys, mask)"
    return [picture(t, f"weights of {what}", "weights", expected,
                    lambda: output_pair(t.module(*dims, state=state, args=args), what, ("context", "weights"))[1],
                    rows="batch element", columns="key")]


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


@check(BAHDANAU, "masked_keys_get_zero_weight")
def bahdanau_masked_keys(t: Trial) -> None:
    dq, dk, _ = BAH_DIMS
    for batch, lk, mask in [(4, 6, lengths_mask(t, 4, 6)), (3, 7, random_mask(t.rng, (3, 7)))]:
        what = f"forward(query, keys, mask) with B={batch}, Lk={lk}"
        state = _bahdanau_state(t)
        reply = t.module(*BAH_DIMS, state=state, args=[f32(t, batch, dq), f32(t, batch, lk, dk), mask])
        _, weights = output_pair(reply, what, ("context", "weights"))
        expect_shape(weights, (batch, lk), f"weights returned by {what}")
        expect_masked(t, weights, mask, "weights")
