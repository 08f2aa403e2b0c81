"""``__NAME__``: its checks (written by ``python -m grader new-item``: edit each to the
contract). One check of each kind: its submodules, a comparison with the reference on weights
and inputs drawn from the run's seed, the gradients, an error the contract requires.
docs/authoring.md explains each kind and how to choose its tolerance.

torch is imported inside the functions that run the reference: the checks package must
import where torch is not installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks.base import CheckFailed, Trial, as_array
from grader.checks.expect import expect_close, expect_floating, expect_shape

from . import REGISTRY

__UPPER___D_MODEL = 6


def __SNAKE___state(t: Trial) -> dict[str, np.ndarray]:
    """Every parameter loaded from the run's seed: a reply that depends on the module's random
    start could not be compared (nor diagnosed)."""
    d = __UPPER___D_MODEL
    return {"proj.weight": (t.rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32),
            "proj.bias": (t.rng.standard_normal(d) * 0.3).astype(np.float32)}


def __SNAKE___x(t: Trial) -> np.ndarray:
    return t.rng.standard_normal((2, 5, __UPPER___D_MODEL)).astype(np.float32)


def __SNAKE___reference_run(
    state: dict[str, np.ndarray], x: np.ndarray, grad_out: np.ndarray
) -> dict[str, Any]:
    """The reference in float64: its output and the gradients of sum(out * grad_out) w.r.t.
    x ("x") and each parameter (by name)."""
    import torch

    from __REF__ import __NB__ as ref

    module = ref.__NAME__(__UPPER___D_MODEL).double()
    module.load_state_dict({k: torch.from_numpy(v.astype(np.float64)) for k, v in state.items()})
    xt = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
    out = module(xt)
    (out * torch.from_numpy(grad_out.astype(np.float64))).sum().backward()
    grads = {n: p.grad.numpy().copy() for n, p in module.named_parameters() if p.grad is not None}
    return {"out": out.detach().numpy().copy(), "x": xt.grad.numpy().copy(), **grads}


@REGISTRY.check("__NAME__", "has_required_submodules")
def __SNAKE___has_required_submodules(t: Trial) -> None:
    """Public: read from the built module, no reference needed."""
    d = __UPPER___D_MODEL
    reply = t.module(d, method=None)
    if reply.linear.get("proj") != (d, d, True):
        raise CheckFailed(f"__NAME__({d}) needs self.proj = nn.Linear(d_model, d_model) "
                          f"(its submodules: {', '.join(sorted(reply.submodules)) or 'none'})")
    extra = sorted(n for n in reply.parameters if not n.startswith("proj."))
    if extra:
        raise CheckFailed(f"__NAME__ has parameters outside proj: {', '.join(extra)}")


@REGISTRY.check("__NAME__", "forward_matches_reference")
def __SNAKE___forward_matches_reference(t: Trial) -> None:
    state, x = __SNAKE___state(t), __SNAKE___x(t)
    out = as_array(t.module(__UPPER___D_MODEL, state=state, args=(x,)).outputs,
                   "forward(x)")
    expect_floating(out, "forward(x)")
    expect_shape(out, x.shape, f"forward(x) for x of shape {x.shape}")
    expected = t.reference(__SNAKE___reference_run, state, x, np.zeros_like(x))["out"]
    expect_close(t, out, expected, f"forward(x) for x of shape {x.shape}", "the contract's formula")


@REGISTRY.check("__NAME__", "gradients_flow")
def __SNAKE___gradients_flow(t: Trial) -> None:
    state, x = __SNAKE___state(t), __SNAKE___x(t)
    grad_out = t.rng.standard_normal(x.shape).astype(np.float32)
    reply = t.module(__UPPER___D_MODEL, state=state, args=(x,), grad_inputs=(0,),
                     grad_outputs=[grad_out])
    expected = t.reference(__SNAKE___reference_run, state, x, grad_out)
    got = {"x": (reply.input_grads or [None])[0], **(reply.param_grads or {})}
    for name in ["x", *state]:
        if got.get(name) is None:
            raise CheckFailed(f"no gradient reaches {name}: is part of forward detached, or outside torch?")
        grad = as_array(got[name], f"the gradient w.r.t. {name}")
        expect_close(t, grad, expected[name], f"the gradient w.r.t. {name}", "the gradient of the formula")


@REGISTRY.check("__NAME__", "rejects_bad_size")
def __SNAKE___rejects_bad_size(t: Trial) -> None:
    """An error the contract requires, by its class (never by its message)."""
    raised = t.module_raises(0)
    if raised is None or not raised.is_a("ValueError"):
        got = "built" if raised is None else f"raised {raised.describe()}"
        raise CheckFailed(f"__NAME__(0) {got}; the contract asks for a ValueError "
                          "when d_model < 1")
