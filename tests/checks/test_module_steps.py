"""``Trial.module_steps``: a stateful call sequence on one module (decode token after token, each
time with the cache the previous call returned), answered in process as the sandbox answers it
(tests/sandbox/test_sandbox_module_steps.py runs the same in a real sandbox), and its request on
the wire."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed in this environment")

from module_steps_support import SOURCE, check_steps, trial, xs  # noqa: E402

from grader import frames, wire  # noqa: E402
from grader.checks.calls import Step  # noqa: E402
from grader.checks.modules import reference_steps  # noqa: E402
from grader.runners.inprocess import InProcessRunner  # noqa: E402
from grader.submissions.load import Cell, SourceFile  # noqa: E402
from grader.wire import StepOutput, WireError  # noqa: E402


def test_module_steps_in_process():
    check_steps(trial(InProcessRunner.from_source(SourceFile("nb", "nb.py", (Cell(1, SOURCE),)))))


def test_a_module_call_without_steps_sends_what_it_sent_before():
    # The JSON of every other request is unchanged (the diagnosis keys its replies on it).
    request = wire.ModuleCall("M", wire.encode([4]), "forward", args=wire.encode([]))
    assert "steps" not in request.to_json()


def test_steps_travel_and_bad_steps_are_refused():
    step = wire.ModuleStep("decode", [wire.encode(np.ones(2)), StepOutput(0, (1,)).to_json()], {"cache": None})
    request = wire.ModuleCall("M", wire.encode([4]), None, state=wire.encode({}), steps=(step,))
    assert wire.request_from_json(frames.parse(frames.pack(request.to_json())[frames.HEADER_SIZE:])) == request
    base = request.to_json()
    for steps in ({}, [["decode"]], [[1, [], {}]], [["decode", {}, {}]], [["decode", [], []]]):
        with pytest.raises(WireError, match="steps must be"):
            wire.request_from_json({**base, "steps": steps})
    assert wire.step_output({"$step": [0, 1]}) == (0, 1)
    assert wire.step_output({"$dict": {}}) is None and wire.step_output([0]) is None
    for path in ([], [-1], ["0"], 0, [0.5]):
        with pytest.raises(WireError):
            wire.step_output({"$step": path})


def test_the_reference_side_makes_the_same_calls_in_float64():
    namespace: dict = {}
    exec(SOURCE, namespace)
    weight = np.eye(3, dtype=np.float32) * 2
    x = xs(2)
    steps = [Step("step", (x[0],)), Step("step", (x[1],), {"total": StepOutput(0, (1,))})]
    (scaled0, total0), (scaled1, total1) = reference_steps(namespace["Accumulator"](3), {"scale.weight": weight}, steps)
    assert total1.dtype == np.float64 and np.allclose(total1, x[0] + x[1]) and np.allclose(scaled1, 2 * (x[0] + x[1]))
    assert np.allclose(total0, x[0]) and np.allclose(scaled0, 2 * x[0])
