"""``__NAME__``: its checks (written by ``python -m grader new-item``: edit each to the
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
