"""What the checks of ``GroupedQueryAttention`` share: its weights drawn from the trial's rng, the
sizes they are drawn at, the calls of ``forward`` and of ``decode`` token after token, and the
reference run lazily (torch and the reference are imported when a hidden check first needs them,
so the checks package imports where torch is not installed).

The head counts are neither 8 nor a power of two, and the number of key/value heads lies
strictly between 1 and the number of query heads, so that ``h % num_kv_heads`` and ``h // group``
name different key/value heads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import CheckFailed, ModuleReply, Trial, as_array, as_pair
from grader.checks.calls import Step
from grader.checks.expect import expect_floating, expect_shape
from grader.checks.modules import linear_state, reference_run, reference_steps
from grader.wire import StepOutput

GQA = "GroupedQueryAttention"
# (d_model, num_heads, num_kv_heads): d_k = 4 and a group of 2; d_k = 3 and a group of 3.
SIZES = (24, 6, 3)
OTHER_SIZES = (36, 12, 4)
FORMULA = ("the definition W_o(concat_h softmax(Q_h K_{h // group}^T / sqrt(d_k)) V_{h // group}), "
           "head h of a projection being its features h*d_k ... (h+1)*d_k - 1")


def gqa_state(t: Trial, d_model: int, heads: int, kv_heads: int) -> dict[str, np.ndarray]:
    """Every parameter of the contract's module, drawn from the trial's rng."""
    d_kv = kv_heads * (d_model // heads)
    state: dict[str, np.ndarray] = {}
    for name, d_out in (("W_q", d_model), ("W_k", d_kv), ("W_v", d_kv), ("W_o", d_model)):
        state.update(linear_state(t, name, d_model, d_out, True))
    return state


def gqa_name(sizes: Sequence[int]) -> str:
    return f"{GQA}({', '.join(str(s) for s in sizes)})"


def causal(length: int) -> np.ndarray:
    return np.tril(np.ones((length, length), dtype=bool))


def gqa_forward(t: Trial, sizes: Sequence[int], state: dict[str, np.ndarray], x: np.ndarray,
                mask: np.ndarray | None = None,
                seeds: Sequence[np.ndarray] | None = None) -> tuple[ModuleReply, str]:
    """The student's ``forward(x[, mask])`` (with ``seeds``: backpropagated from
    ``sum(output * seeds[0]) + sum(weights * seeds[1])``) and how to name the call."""
    args: list[Any] = [x] + ([mask] if mask is not None else [])
    reply = t.module(*sizes, state=state, args=args, grad_inputs=(0,) if seeds else (), grad_outputs=seeds)
    shape = f"mask of shape {tuple(mask.shape)}" if mask is not None else "mask=None"
    return reply, f"{gqa_name(sizes)}.forward (x of shape {tuple(x.shape)}, {shape})"


def gqa_pair(outputs: Any, what: str, heads: int, kv_heads: int) -> tuple[np.ndarray, np.ndarray]:
    """``(output, weights)`` of a forward on ``x (B, L, d_model)`` (what it returned), of the
    contract's shapes."""
    first, second = as_pair(outputs, what)
    output, weights = as_array(first, f"output returned by {what}"), as_array(second, f"weights returned by {what}")
    expect_floating(output, f"output returned by {what}")
    expect_floating(weights, f"weights returned by {what}")
    if output.ndim != 3:
        raise CheckFailed(f"output returned by {what} has shape {tuple(output.shape)}, expected (B, L, d_model)")
    batch, length, _ = output.shape
    wanted = (batch, heads, length, length)
    if weights.shape == (batch, length, length) and heads > 1:
        raise CheckFailed(f"weights returned by {what} has shape {weights.shape}: it looks averaged over "
                          f"the heads; return every query head's weights, shape (B, H, L, L) = {wanted}")
    if weights.shape == (batch, kv_heads, length, length) and kv_heads != heads:
        raise CheckFailed(f"weights returned by {what} has shape {weights.shape}: one per key/value head; "
                          f"return every query head's weights, shape (B, num_heads, L, L) = {wanted}")
    expect_shape(weights, wanted, f"weights returned by {what}")
    return output, weights


def decode_steps(x: np.ndarray, after: int = 0) -> list[Step]:
    """``decode`` on each token of ``x (B, L, d_model)`` in turn, the first without a cache,
    each later one with the cache the call before it returned; ``after`` steps come first."""
    first = Step("decode", (np.ascontiguousarray(x[:, :1]),))
    return [first] + [Step("decode", (np.ascontiguousarray(x[:, i:i + 1]), StepOutput(after + i - 1, (1,))))
                      for i in range(1, x.shape[1])]


def decoded(outputs: list[Any], what: str) -> list[tuple[Any, Any]]:
    """Each decode call's ``(out_t, cache)``."""
    pairs = []
    for i, out in enumerate(outputs):
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            got = f"{len(out)} values" if isinstance(out, (tuple, list)) else "one value"
            raise CheckFailed(f"{what}: call {i + 1} returned {got}; decode returns a pair (out_t, cache)")
        pairs.append((out[0], out[1]))
    return pairs


# ---- the reference (hidden checks only) ------------------------------------------------------


def reference_gqa(sizes: Sequence[int], state: dict[str, np.ndarray], args: Sequence[Any],
                  grad_inputs: Sequence[int] = (),
                  grad_outputs: Sequence[np.ndarray | None] | None = None) -> dict[str, Any]:
    """The reference module's forward in float64 (``reference_run``)."""
    import reference.llm_torch as ref

    return reference_run(ref.GroupedQueryAttention(*sizes), state, "forward", args, grad_inputs, grad_outputs)


def reference_gqa_steps(sizes: Sequence[int], state: dict[str, np.ndarray], steps: Sequence[Step]) -> list[Any]:
    """The reference module's calls in float64 (``reference_steps``)."""
    import reference.llm_torch as ref

    return reference_steps(ref.GroupedQueryAttention(*sizes), state, steps)
