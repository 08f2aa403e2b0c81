"""The pieces ``new-item`` writes, one pair (a function item, a module item) per piece.

Each is a working minimum, not a placeholder: a small contract (a function ``x (..., d) ->
(..., d)`` that rejects a scalar; a module with one ``nn.Linear(d_model, d_model)`` that
rejects ``d_model < 1``) that the author edits into the real one. The tokens ``__NAME__``
(the item), ``__SNAKE__``/``__UPPER__`` (its name in snake case, lower and upper), ``__REF__``
(the reference package), ``__NB__`` (the notebook) are filled in by ``fill``. The checks
module's global names start with the item's: check.py inlines the public checks of every
item into one file. ``STUB_MARK`` opens the reference stub's message: the audit refuses to run while
it is left in the reference.
"""

from __future__ import annotations

STUB_MARK = "new-item: write the reference of "


def fill(text: str, name: str, snake: str, reference: str, notebook: str) -> str:
    return (text.replace("__UPPER__", snake.upper()).replace("__SNAKE__", snake).replace("__NAME__", name)
            .replace("__REF__", reference).replace("__NB__", notebook))


# ---- the YAML entry: check -> points (True: public) ------------------------------------

CHECKS = {
    False: {"matches_reference": (2, False), "keeps_shape": (1, True), "rejects_scalar": (1, True)},
    True: {"has_required_submodules": (1, True), "forward_matches_reference": (2, False),
           "gradients_flow": (2, False), "rejects_bad_size": (1, True)},
}

# ---- the reference stub ------------------------------------------------------------------

REFERENCE = {
    False: '''

def __NAME__(x):
    """What __NAME__ computes, as the contract says it (new-item wrote this stub: edit it).

    ``x (..., d) -> (..., d)``, the same shape as ``x``.

    Raises:
        ValueError: if ``x`` is a scalar (no axis).
    """
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("__NAME__ needs an array with at least one axis, "
                         "got a scalar")
    raise NotImplementedError("''' + STUB_MARK + '''__NAME__"
                              " (__REF__/__NB__.py)")
''',
    True: '''

class __NAME__(nn.Module):
    """What __NAME__ computes, as the contract says it (new-item wrote this stub: edit it).

    Submodule: ``proj = nn.Linear(d_model, d_model)``.
    ``forward(x)``: ``x (B, L, d_model) -> (B, L, d_model)``.

    Raises:
        ValueError: if ``d_model < 1``.
    """

    def __init__(self, d_model):
        if d_model < 1:
            raise ValueError(f"d_model must be at least 1, got {d_model}")
        super().__init__()
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        """``x (B, L, d_model) -> (B, L, d_model)``."""
        raise NotImplementedError("''' + STUB_MARK + '''__NAME__"
                                  " (__REF__/__NB__.py)")
''',
}

# What the reference stub needs imported: (the line, a regex that finds it already there).
REFERENCE_IMPORTS = {False: ("import numpy as np", r"^import numpy as np$"),
                     True: ("from torch import nn", r"^from torch import nn$")}

# ---- the checks module ---------------------------------------------------------------------

CHECKS_MODULE = {
    False: '''"""``__NAME__``: its checks (written by ``python -m grader new-item``: edit each to the
contract). One check of each kind: a comparison with the reference on inputs drawn from the
run's seed, a property every correct implementation has, an error the contract requires.
docs/authoring.md explains each kind and how to choose its tolerance.
"""

from __future__ import annotations

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, as_array
from grader.checks.expect import expect_close, expect_floating, expect_shape
from __REF__ import __NB__ as ref

from . import REGISTRY

# A vector, a matrix, a batch: the shapes the contract allows.
__UPPER___SHAPES = [(5,), (3, 4), (2, 3, 6)]


def __SNAKE___inputs(t: Trial) -> list[np.ndarray]:
    # Drawn from the run's seed: each run grades on new numbers, so nothing can be fitted to them.
    return [t.rng.standard_normal(shape) for shape in __UPPER___SHAPES]


@REGISTRY.check("__NAME__", "matches_reference")
def __SNAKE___matches_reference(t: Trial) -> None:
    """Hidden: the reference's values never reach the student, only the size of the error."""
    xs = __SNAKE___inputs(t)
    for x, got in zip(xs, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"__NAME__(x) for x of shape {x.shape}"
        out = as_array(got, what)
        expect_floating(out, what)
        expect_shape(out, x.shape, what)
        expect_close(t, out, t.reference(ref.__NAME__, x), what, "the contract's formula")


@REGISTRY.check("__NAME__", "keeps_shape")
def __SNAKE___keeps_shape(t: Trial) -> None:
    """A property: no reference needed, so it may be public (check.py shows its message)."""
    xs = __SNAKE___inputs(t)
    for x, got in zip(xs, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"__NAME__(x) for x of shape {x.shape}"
        expect_shape(as_array(got, what), x.shape, what)


@REGISTRY.check("__NAME__", "rejects_scalar")
def __SNAKE___rejects_scalar(t: Trial) -> None:
    """An error the contract requires, by its class (never by its message)."""
    (raised,) = t.raised_each([Args(np.float64(1.5))])
    if raised is None or not raised.is_a("ValueError"):
        got = "returned" if raised is None else f"raised {raised.describe()}"
        raise CheckFailed(f"__NAME__(1.5) {got}; the contract asks for a ValueError "
                          "on a scalar")
''',
    True: '''"""``__NAME__``: its checks (written by ``python -m grader new-item``: edit each to the
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
''',
}

# ---- the catalogue -------------------------------------------------------------------------

MUTANT = {
    False: '''"""The input comes back as it was, nothing computed.

new-item's example mistake: replace it with one a student makes, in the student's words (the
first line is what the feedback shows; no code or numbers there)."""
# item: __NAME__
# loses: matches_reference
import numpy as np


def __NAME__(x):
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("a scalar")
    return x.astype(np.float64)
''',
    True: '''"""The projection is skipped: the input comes back as it was.

new-item's example mistake: replace it with one a student makes, in the student's words (the
first line is what the feedback shows; no code or numbers there)."""
# item: __NAME__
# loses: forward_matches_reference
_Base = __NAME__


class __NAME__(_Base):
    def forward(self, x):
        return x + 0 * self.proj(x)
''',
}

ALTERNATIVE = {
    False: '''"""__NAME__ computed in float32 (new-item's example alternative: replace it with a port
of public code, named by its source in a comment and in the file's name)."""
# item: __NAME__
import numpy as np

_reference = __NAME__


def __NAME__(x):
    return _reference(np.asarray(x, dtype=np.float32))
''',
    True: '''"""__NAME__ on a contiguous copy of its input (new-item's example alternative: replace
it with a port of public code, named by its source in a comment and in the file's name)."""
# item: __NAME__
_Base = __NAME__


class __NAME__(_Base):
    def forward(self, x):
        return super().forward(x.contiguous())
''',
}

# ---- the notebook's cells ------------------------------------------------------------------

INTRO = {
    False: """## `__NAME__` (__POINTS__ points)

What `__NAME__` computes and why (new-item wrote this section: edit it to the contract). The
formula:

$$
y = f(x)
$$

| argument | shape |
| --- | --- |
| `x` | `(..., d)` |
| returns | `(..., d)`, the shape of `x` |

Raise `ValueError` when `x` is a scalar.""",
    True: """## `__NAME__` (__POINTS__ points)

What `__NAME__` computes and why (new-item wrote this section: edit it to the contract). The
formula:

$$
y = f(x)
$$

**Submodule, exactly:** `self.proj = nn.Linear(d_model, d_model)`. Raise `ValueError` in
`__init__` when `d_model < 1`.

| `forward(x)` | shape |
| --- | --- |
| `x` | `(B, L, d_model)` |
| returns | `(B, L, d_model)` |""",
}

TEST_CELL = {
    False: """# Visible tests for __NAME__.
x = np.arange(6.0).reshape(2, 3)
y = __NAME__(x)
assert np.shape(y) == x.shape, f"__NAME__ must keep the shape {x.shape}, got {np.shape(y)}"
print("__NAME__: visible tests passed")
""",
    True: """# Visible tests for __NAME__.
layer = __NAME__(4)
assert isinstance(getattr(layer, "proj", None), nn.Linear), "self.proj must be an nn.Linear"
x = torch.randn(2, 3, 4)
assert layer(x).shape == x.shape, "forward must keep the input's shape"
print("__NAME__: visible tests passed")
""",
}

HIDDEN_TESTS = """
### BEGIN HIDDEN TESTS
from grader.nbgrader.hidden_tests import assert_item
assert_item("__NAME__", globals()__BUNDLE__)
### END HIDDEN TESTS"""
