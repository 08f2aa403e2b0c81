"""``LuongAttention`` (part 2): its public example and its checks, method by method: each
check builds the module with one method, so a student whose ``concat`` is wrong loses the
``concat_*`` checks only. The function ``luong_attention`` of part 1 is ``luong``.

As in ``bahdanau_module``: float32 inputs and weights from the trial's rng, copied in by
state-dict key, compared with the reference in float64 torch (imported lazily, by
``torch_support``). ``values`` have ``d_v`` other than ``hidden_dim``, ``W`` is a random
(non-symmetric) matrix and ``W``'s two halves of the concatenation differ, so ``W`` on the
keys or the key before the query show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import CheckFailed, Trial, close_mask, discrepancy
from grader.checks.expect import expect_close, expect_raises, expect_shape
from grader.checks.inputs import random_mask
from grader.checks.pictures import picture
from grader.records.results import Picture

from . import REGISTRY, check
from .example_support import LUONG_METHODS, public_linear_state, public_rng
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

LUONG_MODULE = "LuongAttention"
LUONG_HIDDEN, LUONG_DV = 5, 3  # hidden_dim and the values' width: different, so keys for values show
LUONG_MODULE_SCORES = {
    "dot": "query . keys[:, j]",
    "general": "W(query) . keys[:, j]",
    "concat": "v(tanh(W(cat(query, keys[:, j]))))",
}


def luong_state(t: Trial, method: str) -> dict[str, np.ndarray]:
    h = LUONG_HIDDEN
    if method == "general":
        return linear_state(t, "W", h, h, False)
    if method == "concat":
        return {**linear_state(t, "W", 2 * h, h, True), **linear_state(t, "v", h, 1, False)}
    return {}


def _luong_module_slips(method: str, state: dict[str, np.ndarray], query: np.ndarray,
                        keys: np.ndarray, mask: np.ndarray | None) -> list[tuple[np.ndarray, str]]:
    """Weights of the classic slips of ``method`` (in float64 numpy), each with what it is."""
    q, k = query.astype(np.float64), keys.astype(np.float64)
    if method == "concat":
        weight, bias = state["W.weight"].astype(np.float64), state["W.bias"].astype(np.float64)
        pairs = np.concatenate([k, np.broadcast_to(q[:, None, :], k.shape)], axis=-1)  # key first
        candidates = [(np.tanh(pairs @ weight.T + bias) @ state["v.weight"][0].astype(np.float64),
                       "cat(keys[:, j], query): the query comes first, cat(query, keys[:, j])")]
    else:
        projected = q @ state["W.weight"].astype(np.float64).T if method == "general" else q
        candidates = [(np.einsum("bd,bjd->bj", projected, k) / np.sqrt(LUONG_HIDDEN),
                       "scores divided by sqrt(hidden_dim): Luong's scores are not scaled")]
        if method == "general":
            candidates.append((np.einsum("bd,bjd->bj", q @ state["W.weight"].astype(np.float64), k),
                               "W applied to the keys, W(keys[:, j]) . query: apply W to the query"))
    slips = []
    for scores, why in candidates:
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
        slips.append((shifted / shifted.sum(axis=-1, keepdims=True), why))
    return slips


def luong_forward(t: Trial, method: str, batch: int, lk: int, mask: np.ndarray | None = None,
                  grads: bool = False) -> None:
    state = luong_state(t, method)
    query, keys, values = f32(t, batch, LUONG_HIDDEN), f32(t, batch, lk, LUONG_HIDDEN), f32(t, batch, lk, LUONG_DV)
    args: list[Any] = [query, keys, values] + ([mask] if mask is not None else [])
    seeds = [f32(t, batch, LUONG_DV), f32(t, batch, lk)] if grads else None
    grad_inputs = (0, 1, 2) if grads else ()
    init = (LUONG_HIDDEN, method)
    what = (f"{LUONG_MODULE}({LUONG_HIDDEN}, method={method!r}).forward(query, keys, values"
            f"{', mask' if mask is not None else ''}) with B={batch}, Lk={lk}, d_v={LUONG_DV}")
    reply = t.module(*init, state=state, args=args, grad_inputs=grad_inputs, grad_outputs=seeds)
    expected = t.reference(reference_module, LUONG_MODULE, init, state, "forward", args, grad_inputs, seeds)
    context, weights = output_pair(reply, what, ("context", "weights"))
    expect_shape(weights, (batch, lk), f"weights returned by {what}")
    expect_shape(context, (batch, LUONG_DV), f"context returned by {what}")
    if mask is not None:
        expect_masked(t, weights, mask, "weights")
    formula = (f"the definition weights = softmax_j({LUONG_MODULE_SCORES[method]}) and "
               "context = sum_j weights[:, j] * values[:, j]")
    off = discrepancy(t, weights, expected["outputs"][1])
    if off is not None:
        for slip, why in _luong_module_slips(method, state, query, keys, mask):
            if close_mask(t, weights, slip).all():
                raise CheckFailed(f"weights returned by {what} are those of {why} (they differ from "
                                  f"the definition {off.sizes()})", off.margin)
    expect_close(t, weights, expected["outputs"][1], f"weights returned by {what}", formula)
    expect_close(t, context, expected["outputs"][0], f"context returned by {what}", formula)
    if grads:
        grad_in = reply.input_grads or [None, None, None]
        for i, name in enumerate(("query", "keys", "values")):
            expect_grad(t, grad_in[i], expected["input_grads"][i], name)
        expect_param_grads(t, reply, expected["param_grads"])


def luong_definition_cases(t: Trial, method: str) -> None:
    for batch, lk in [(3, 7), (1, 1), (2, 4)]:
        luong_forward(t, method, batch, lk)
    luong_forward(t, method, 4, 6, mask=lengths_mask(t, 4, 6))


def luong_masked_keys(t: Trial, method: str) -> None:
    """Public: exactly 0 where the mask blocks and rows summing to 1 (no reference needed)."""
    for batch, lk, mask in [(4, 6, lengths_mask(t, 4, 6)), (3, 7, random_mask(t.rng, (3, 7)))]:
        what = (f"{LUONG_MODULE}({LUONG_HIDDEN}, method={method!r}).forward(query, keys, values, mask) "
                f"with B={batch}, Lk={lk}")
        reply = t.module(LUONG_HIDDEN, method, state=luong_state(t, method),
                         args=[f32(t, batch, LUONG_HIDDEN), f32(t, batch, lk, LUONG_HIDDEN),
                               f32(t, batch, lk, LUONG_DV), mask])
        _, weights = output_pair(reply, what, ("context", "weights"))
        expect_shape(weights, (batch, lk), f"weights returned by {what}")
        expect_masked(t, weights, mask, "weights")


def luong_submodules(t: Trial, method: str) -> None:
    h = 6
    cls = f"{LUONG_MODULE}({h}, method={method!r})"
    reply = t.module(h, method, method=None)
    if method == "dot":
        if reply.submodules or reply.parameters:
            have = ", ".join(sorted(reply.submodules) + sorted(reply.parameters))
            raise CheckFailed(f"{cls} has submodules or parameters ({have}); the dot score "
                              "query . keys[:, j] has none, so the contract's module has 0 parameters")
        return
    wanted = {"W": (h, h, False)} if method == "general" else {"W": (2 * h, h, True), "v": (h, 1, False)}
    expect_linears(reply, cls, wanted)
    extra = sorted(set(reply.submodules) - set(wanted))
    if extra:
        raise CheckFailed(f"{cls} has submodules other than {', '.join(wanted)}: {', '.join(extra)}")
    count = sum(int(np.prod(shape)) for shape, _, _ in reply.parameters.values())
    want = h * h if method == "general" else 2 * h * h + h + h
    if count != want:
        raise CheckFailed(f"{cls} has {count} parameters; the contract's module has {want}")


@check(LUONG_MODULE, "rejects_unknown_method")
def luong_module_rejects_unknown_method(t: Trial) -> None:
    for method in ("location", "additive", "scaled_dot"):
        expect_raises(t.module_raises(4, method), "ValueError",
                      returned=f"{LUONG_MODULE}(4, method={method!r}) built without an error: raise "
                               "ValueError for a method other than 'dot', 'general' or 'concat'",
                      other=f"{LUONG_MODULE}(4, method={method!r}) raised {{raised}}; the contract asks "
                            "for a ValueError")


@REGISTRY.example("LuongAttention")
def luong_module_example(t: Trial) -> Sequence[Picture]:
    hidden = 4  # the notebook's hidden_dim; values of width 3, six keys, the second sequence padded
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    pictures = []
    for method in LUONG_METHODS:
        rng = public_rng()
        state: dict[str, np.ndarray] = {}
        if method == "general":
            state = public_linear_state(rng, "W", hidden, hidden, False)
        elif method == "concat":
            state = {**public_linear_state(rng, "W", 2 * hidden, hidden, True),
                     **public_linear_state(rng, "v", hidden, 1, False)}
        args = [rng.standard_normal((2, hidden)).astype(np.float32),
                rng.standard_normal((2, 6, hidden)).astype(np.float32),
                rng.standard_normal((2, 6, 3)).astype(np.float32), mask]
        init = (hidden, method)
        expected = t.reference(reference_module, "LuongAttention", init, state, "forward", args)["outputs"][1]
        what = f"LuongAttention({hidden}, method={method!r}).forward(query, keys, values, mask)"
        pictures.append(picture(
            t, f"weights of {what}", "weights", expected,
            lambda init=init, state=state, args=args, what=what: output_pair(
                t.module(*init, state=state, args=args), what, ("context", "weights"))[1],
            rows="batch element", columns="key"))
    return pictures


# ---- the checks, method by method (top-level functions: check.py inlines the public ones) ----


@check(LUONG_MODULE, "dot_has_no_parameters")
def luong_dot_submodules(t: Trial) -> None:
    luong_submodules(t, "dot")


@check(LUONG_MODULE, "general_has_required_submodules")
def luong_general_submodules(t: Trial) -> None:
    luong_submodules(t, "general")


@check(LUONG_MODULE, "concat_has_required_submodules")
def luong_concat_submodules(t: Trial) -> None:
    luong_submodules(t, "concat")


@check(LUONG_MODULE, "dot_forward_matches_definition")
def luong_dot_forward(t: Trial) -> None:
    luong_definition_cases(t, "dot")


@check(LUONG_MODULE, "general_forward_matches_definition")
def luong_general_forward(t: Trial) -> None:
    luong_definition_cases(t, "general")


@check(LUONG_MODULE, "concat_forward_matches_definition")
def luong_concat_forward(t: Trial) -> None:
    luong_definition_cases(t, "concat")


@check(LUONG_MODULE, "dot_masked_keys_get_zero_weight")
def luong_dot_masked_keys(t: Trial) -> None:
    luong_masked_keys(t, "dot")


@check(LUONG_MODULE, "general_masked_keys_get_zero_weight")
def luong_general_masked_keys(t: Trial) -> None:
    luong_masked_keys(t, "general")


@check(LUONG_MODULE, "concat_masked_keys_get_zero_weight")
def luong_concat_masked_keys(t: Trial) -> None:
    luong_masked_keys(t, "concat")


@check(LUONG_MODULE, "dot_gradients_flow")
def luong_dot_gradients(t: Trial) -> None:
    luong_forward(t, "dot", 3, 5, grads=True)


@check(LUONG_MODULE, "general_gradients_flow")
def luong_general_gradients(t: Trial) -> None:
    luong_forward(t, "general", 3, 5, grads=True)


@check(LUONG_MODULE, "concat_gradients_flow")
def luong_concat_gradients(t: Trial) -> None:
    luong_forward(t, "concat", 3, 5, grads=True)
