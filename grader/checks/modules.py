"""What the checks of a PyTorch module share, whatever the bundle: the reference module run in
float64 (one call, or a sequence of calls on one module), float32 inputs and weights drawn from
the trial's rng, and readers of the module's reply.

torch is imported inside the functions that run a module, when a check first needs them, never
at import time: a bundle's checks package must import in environments without torch. A bundle
builds its reference module from its own reference package and hands it to ``reference_run`` or
``reference_steps`` (``t.reference`` keys the result on the bundle's function and its arguments).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..wire import StepOutput
from .base import CheckFailed, ModuleReply, Trial, as_array, as_pair, discrepancy, fmt_index
from .calls import Step
from .expect import expect_close, expect_floating, expect_shape

# ---- the reference, in float64 --------------------------------------------------------------


def _loaded(module: Any, state: dict[str, np.ndarray]) -> Any:
    """``module`` in float64 with ``state`` copied in."""
    import torch

    module = module.double()
    own = module.state_dict()
    with torch.no_grad():
        for key, value in state.items():
            own[key].copy_(torch.from_numpy(np.asarray(value, dtype=np.float64)))
    return module


def _tensor(value: Any, grad: bool = False) -> Any:
    """An array as a float64 (or integer, boolean) tensor; anything else as it is."""
    import torch

    if not isinstance(value, np.ndarray):
        return value
    if value.dtype.kind == "f":
        x = torch.from_numpy(value.astype(np.float64))
        return x.requires_grad_(True) if grad else x
    return torch.from_numpy(value.copy())


def reference_run(module: Any, state: dict[str, np.ndarray], method: str, args: Sequence[Any],
                  grad_inputs: Sequence[int] = (),
                  grad_outputs: Sequence[np.ndarray | None] | None = None) -> dict[str, Any]:
    """What ``Trial.module`` does, on a reference ``module`` in float64: outputs, the gradients
    of ``sum(out_i * grad_outputs[i])`` w.r.t. the inputs ``grad_inputs`` and every
    parameter, all as float64 numpy arrays."""
    import torch

    module = _loaded(module, state)
    tensors = [_tensor(a, i in grad_inputs) for i, a in enumerate(args)]
    out = getattr(module, method)(*tensors)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    result: dict[str, Any] = {"outputs": [o.detach().numpy().copy() for o in outs]}
    if grad_outputs is not None:
        loss = sum((o * torch.from_numpy(np.asarray(g, dtype=np.float64))).sum()
                   for o, g in zip(outs, grad_outputs, strict=False) if g is not None)
        loss.backward()  # type: ignore[union-attr]
        result["input_grads"] = {i: tensors[i].grad.numpy().copy() for i in grad_inputs}
        result["param_grads"] = {n: p.grad.numpy().copy() for n, p in module.named_parameters()}
    return result


def reference_steps(module: Any, state: dict[str, np.ndarray], steps: Sequence[Step]) -> list[Any]:
    """What ``Trial.module_steps`` does, on a reference ``module`` in float64: each step's
    outputs, tensors as float64 numpy arrays (tuples and lists kept), a ``StepOutput`` argument
    the object that step returned."""
    import torch

    module = _loaded(module, state)
    done: list[Any] = []

    def argument(value: Any) -> Any:
        if not isinstance(value, StepOutput):
            return _tensor(value)
        found = done[value.step]
        for i in value.element:
            found = found[i]
        return found

    def plain(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.detach().numpy().copy()
        return type(value)(plain(v) for v in value) if isinstance(value, (tuple, list)) else value

    outputs = []
    with torch.no_grad():
        for step in steps:
            out = getattr(module, step.method)(*[argument(a) for a in step.args],
                                               **{k: argument(v) for k, v in (step.kwargs or {}).items()})
            done.append(out)
            outputs.append(plain(out))
    return outputs


# ---- inputs --------------------------------------------------------------------------------


def f32(t: Trial, *shape: int, scale: float = 1.0) -> np.ndarray:
    return (t.rng.standard_normal(shape) * scale).astype(np.float32)


def linear_state(t: Trial, name: str, d_in: int, d_out: int, bias: bool) -> dict[str, np.ndarray]:
    state = {f"{name}.weight": f32(t, d_out, d_in, scale=1.5 / np.sqrt(d_in))}
    if bias:
        state[f"{name}.bias"] = f32(t, d_out, scale=0.3)
    return state


def lengths_mask(t: Trial, batch: int, length: int) -> np.ndarray:
    """A padding mask ``(batch, length)``: every row keeps 1..length keys, one row fewer."""
    lengths = t.rng.integers(1, length + 1, size=batch)
    lengths[0] = max(1, length - 2)
    lengths[-1] = length
    return np.arange(length)[None, :] < lengths[:, None]


# ---- reading the reply ---------------------------------------------------------------------


def listed(names: list[str], most: int = 8, chars: int = 60) -> str:
    """The student's ``names``, the first ``most`` of them, each cut to ``chars``: a module may
    have any number of submodules, of any length, and the sentence must end with what the
    contract asks."""
    shown = [name if len(name) <= chars else name[:chars - 3] + "..." for name in names[:most]]
    return ", ".join(shown + ([f"and {len(names) - most:,} more"] if len(names) > most else []))


def expect_linears(reply: ModuleReply, cls: str, wanted: dict[str, tuple[int, int, bool]]) -> None:
    for name, (d_in, d_out, bias) in wanted.items():
        spec = f"nn.Linear({d_in}, {d_out}, bias={bias})"
        if name not in reply.submodules:
            have = listed(sorted(reply.submodules)) or "none"
            raise CheckFailed(f"{cls} has no submodule named {name} (its submodules: {have}); "
                              f"the contract asks for self.{name} = {spec}")
        if name not in reply.linear:
            raise CheckFailed(f"{name} is a {reply.submodules[name]}, not a torch.nn.Linear; "
                              f"the contract asks for {spec}")
        got_in, got_out, got_bias = reply.linear[name]
        if (got_in, got_out) != (d_in, d_out):
            raise CheckFailed(f"{name} is a Linear({got_in}, {got_out}); the contract asks for "
                              f"{spec} (in_features={d_in}, out_features={d_out})")
        if got_bias != bias:
            raise CheckFailed(f"{name} is a Linear({got_in}, {got_out}, bias={got_bias}); "
                              f"the contract asks for bias={bias}")
    extra = sorted(n for n in reply.parameters if n.split(".")[0] not in wanted)
    if extra:
        raise CheckFailed(f"{cls} has parameters outside {', '.join(wanted)}: {listed(extra)}; "
                          "the contract's module has no other parameters")


def output_pair(reply: ModuleReply, what: str, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    first, second = as_pair(reply.outputs, what)
    a = as_array(first, f"{names[0]} returned by {what}")
    b = as_array(second, f"{names[1]} returned by {what}")
    expect_floating(a, f"{names[0]} returned by {what}")
    expect_floating(b, f"{names[1]} returned by {what}")
    return a, b


def expect_masked(t: Trial, weights: np.ndarray, allowed: np.ndarray, what: str) -> None:
    """Blocked entries exactly 0 and every row summing to 1."""
    allowed = np.broadcast_to(allowed, weights.shape)
    leak = ~allowed & (weights != 0)
    if leak.any():
        index = tuple(np.argwhere(leak)[0])
        raise CheckFailed(
            f"{what}{fmt_index(index)} = {weights[index]:.3g} but the mask blocks key {index[-1]} "
            f"(True means 'may attend'); a masked key must get weight exactly 0 "
            f"({int(leak.sum())} masked entries are not 0)")
    sums = weights.astype(np.float64).sum(axis=-1)
    off = discrepancy(t, sums, np.ones_like(sums), dtype=weights.dtype)
    if off is not None:
        raise CheckFailed(f"row {fmt_index(off.index)} of {what} sums to {sums[off.index]:.4g}, not 1 "
                          f"(off by {off.error:.1e}, tolerance {off.tolerance:.1e}): the weights over "
                          "the keys a query may attend to must sum to 1", off.margin)


def expect_grad(t: Trial, got: Any, expected: np.ndarray, what: str) -> None:
    if got is None:
        raise CheckFailed(f"the gradient of the loss w.r.t. {what} is None: no gradient flows from "
                          f"the outputs back to {what} (is part of the computation detached, "
                          "or done outside torch?)")
    grad = as_array(got, f"the gradient w.r.t. {what}")
    expect_shape(grad, expected.shape, f"the gradient w.r.t. {what}")
    if not np.any(grad) and np.any(expected):
        raise CheckFailed(f"the gradient of the loss w.r.t. {what} is zero everywhere: "
                          f"the outputs are detached from {what}")
    expect_close(t, grad, expected, f"the gradient w.r.t. {what}",
                 "the gradient of the contract's formula")


def expect_param_grads(t: Trial, reply: ModuleReply, expected: dict[str, np.ndarray]) -> None:
    grads = reply.param_grads or {}
    for name, want in expected.items():
        if name not in reply.parameters:
            raise CheckFailed(f"the module has no parameter {name}")
        if not reply.parameters[name][2]:
            raise CheckFailed(f"the parameter {name} has requires_grad=False: it is frozen, so "
                              "no gradient reaches it")
        expect_grad(t, grads.get(name), want, f"the parameter {name}")
