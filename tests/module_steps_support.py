"""A module with a state it hands back, as decode hands back its cache, and what
``Trial.module_steps`` must give on it: shared by the in-process test
(tests/checks/test_module_steps.py) and the sandbox's (tests/sandbox/test_sandbox_module_steps.py)."""

from __future__ import annotations

import numpy as np
import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.checks.base import CheckFailed, Trial, as_array
from grader.checks.calls import Step
from grader.runners.protocol import Runner
from grader.wire import StepOutput

SOURCE = '''
import torch
from torch import nn

class Accumulator(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.scale = nn.Linear(d, d, bias=False)

    def step(self, x, total=None):
        total = x if total is None else total + x
        return self.scale(total), total

    def in_place(self, x, total=None):
        total = torch.zeros_like(x) if total is None else total
        total += x  # the very tensor the previous call returned, changed
        return total

    def fails(self, x):
        raise ValueError("no")
'''


def trial(runner: Runner) -> Trial:
    item = load_bundle(DEFAULT_ASSIGNMENT).assignment.items[0]
    return Trial(item, "a check", 1, [1], runner)


def xs(n: int) -> list[np.ndarray]:
    return [np.random.default_rng(i).standard_normal(3).astype(np.float32) for i in range(n)]


def check_steps(t: Trial) -> None:
    """What ``module_steps`` must give on ``SOURCE``: each step sees the earlier step's own
    object, by position or by keyword, and its outputs come back as they were when it returned."""
    weight = np.arange(9, dtype=np.float32).reshape(3, 3) / 10
    x = xs(3)
    steps = [Step("step", (x[0],)), Step("step", (x[1], StepOutput(0, (1,)))),
             Step("step", (x[2],), {"total": StepOutput(1, (1,))})]
    outputs = t.module_steps(3, name="Accumulator", state={"scale.weight": weight}, steps=steps)
    assert len(outputs) == 3
    for n, (scaled, total) in enumerate(outputs):
        assert np.allclose(as_array(total, "total"), sum(x[:n + 1]))
        assert np.allclose(as_array(scaled, "scaled"), sum(x[:n + 1]) @ weight.T)
    in_place = [Step("in_place", (x[0],))] + [Step("in_place", (v, StepOutput(i))) for i, v in enumerate(x[1:])]
    totals = t.module_steps(3, name="Accumulator", steps=in_place)
    for n, total in enumerate(totals):
        assert np.allclose(as_array(total, "total"), sum(x[:n + 1])), "an output must be read when its step returns"
    with pytest.raises(CheckFailed, match=r"Accumulator\(3\)\.fails\(<what call 1 returned\[1\]>\), call 2 of 2 "
                                          r"on the same module, raised ValueError: no"):
        t.module_steps(3, name="Accumulator", steps=[Step("step", (x[0],)), Step("fails", (StepOutput(0, (1,)),))])
    with pytest.raises(CheckFailed, match=r"call 1 of 1 on the same module, raised ValueError: step 0 names "
                                          r"the output of step 0, which has not run"):
        t.module_steps(3, name="Accumulator", steps=[Step("step", (StepOutput(0),))])
    with pytest.raises(CheckFailed, match=r"Accumulator\(\) raised TypeError"):
        t.module_steps(name="Accumulator", steps=[Step("step", (x[0],))])


