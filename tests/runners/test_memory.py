"""A call's peak memory, measured where it runs (grader.runners.memory): through the wire, the
in-process runner and Trial.peak_memory; each way of measuring (the high-water mark reset, the
ballast up to it, none where /proc cannot be read); a call over its budget raises
MemoryBudgetExceeded in its reply. The sandbox's side is tests/sandbox/test_sandbox_memory.py."""

from __future__ import annotations

import pytest

from grader import wire
from grader.assignment.config import Item, Tolerance
from grader.checks.base import Args, CheckFailed, Trial
from grader.runners import memory
from grader.runners.inprocess import InProcessRunner
from grader.submissions.load import Cell, SourceFile

MIB = 1 << 20
SOURCE = """
import numpy as np

def grow(mib):
    return float(np.ones((mib, 1 << 17)).sum())  # mib MiB, written, then freed

def hold_and_free(mib):
    global held
    held = np.ones((mib, 1 << 17))
    del held
    return 0

def fails():
    raise KeyError("no")
"""


def about(peak: object, mib: int) -> bool:
    """``peak`` is ``mib`` MiB, as the kernel counts resident pages: its per-CPU counters lag by
    up to about a MiB here (4 MiB read as 3 on a loaded 2-core host), and the interpreter adds
    a little."""
    return isinstance(peak, int) and (mib - 1.5) * MIB <= peak < (mib + 2) * MIB


def runner() -> InProcessRunner:
    return InProcessRunner.from_source(SourceFile("nb", "nb.py", (Cell(1, SOURCE),)))


def measured(r: InProcessRunner, name: str, *args: object, budget: int = 16 * MIB) -> tuple[object, list[object]]:
    reply = wire.Reply.from_json(r.request(wire.Calls(name, ((wire.encode(list(args)), wire.encode({})),), budget)))
    (value,) = wire.decode(reply.value)
    (peak,) = reply.memory
    return value, peak


def test_a_calls_request_carries_its_budget_only_when_it_has_one():
    plain = wire.Calls("f", ((wire.encode([1]), wire.encode({})),))
    assert "memory_budget" not in plain.to_json()
    assert wire.request_from_json(plain.to_json()) == plain
    budgeted = wire.Calls("f", plain.calls, 1234)
    assert wire.request_from_json(budgeted.to_json()) == budgeted
    assert wire.request_from_json({**plain.to_json(), "memory_budget": "lots"}).memory_budget is None


def test_the_peak_of_a_call_is_what_it_allocated_and_freed():
    r = runner()
    value, (peak, method) = measured(r, "grow", 8)
    assert value == 8 * (1 << 17)
    assert method == memory.RESET  # this process may reset its own high-water mark
    assert about(peak, 8)


def test_a_call_over_its_budget_raises_memory_budget_exceeded_with_its_peak():
    value, (peak, _) = measured(runner(), "grow", 40, budget=16 * MIB)
    assert isinstance(value, wire.RaisedError) and value.type == "MemoryBudgetExceeded" and value.is_a("MemoryError")
    assert "over the 16.0 MiB the check allows" in value.message
    assert about(peak, 40)


def test_an_error_of_the_call_is_its_own_and_carries_no_peak():
    value, (peak, method) = measured(runner(), "fails")
    assert isinstance(value, wire.RaisedError) and value.type == "KeyError"
    assert (peak, method) == (None, None)


def test_without_a_reset_a_ballast_fills_the_gap_to_the_high_water_mark(monkeypatch):
    """As in a sandbox, whose /proc is read-only: an earlier peak of 64 MiB, freed, neither
    hides a call's growth past the budget nor charges a small call with it."""
    monkeypatch.setattr(memory, "_reset", lambda: False)
    r = runner()
    measured(r, "hold_and_free", 64, budget=1 << 40)
    value, (peak, method) = measured(r, "grow", 1)
    assert method == memory.BALLAST and value == 1 << 17
    assert peak <= 16 * MIB  # at most the budget: an upper bound within it
    over, (peak, _) = measured(r, "grow", 40)
    assert isinstance(over, wire.RaisedError) and over.type == "MemoryBudgetExceeded"
    assert about(peak, 40)


def test_where_proc_cannot_be_read_nothing_is_measured_and_the_call_answers(monkeypatch):
    monkeypatch.setattr(memory, "STATUS", "/nonexistent/status")
    value, (peak, method) = measured(runner(), "grow", 40)
    assert value == 40 * (1 << 17)
    assert peak is None and method == memory.UNMEASURED


def trial(r: InProcessRunner) -> Trial:
    item = Item("grow", "nb", (("fits", 1.0),), (("float32", Tolerance(0, 1e-5)),))
    return Trial(item, "fits", 0, [0], runner=r)


def test_trial_peak_memory_gives_the_value_and_the_memory_use():
    t = trial(runner())
    value, use = t.peak_memory(Args(4), 16 * MIB)
    assert value == 4 * (1 << 17)
    assert use.budget == 16 * MIB and use.method == memory.RESET and about(use.peak, 4)
    over, use = t.peak_memory(Args(20), 16 * MIB)
    assert isinstance(over, wire.RaisedError) and over.is_a("MemoryBudgetExceeded") and about(use.peak, 20)
    with pytest.raises(CheckFailed, match=r"fails\(\) raised KeyError"):
        t.peak_memory(Args(), 16 * MIB, name="fails")
