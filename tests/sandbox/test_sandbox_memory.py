"""A call's peak memory measured in a real sandbox (grader.runners.memory): its /proc is
read-only and its uid does not own it, so the ballast takes the high-water mark reset's place;
an earlier peak, freed, neither hides a call that grows past its budget nor charges a small one."""

from __future__ import annotations

import pytest

from grader import wire
from grader.runners import memory

pytest.importorskip("torch")  # the sandbox's code imports it (a library other than NumPy allocating)
pytestmark = pytest.mark.timeout(120)

MIB = 1 << 20
CODE = """
import numpy as np
import torch

def grow(mib):
    return float(np.ones((mib, 1 << 17)).sum())

def grow_torch(mib):
    return float(torch.ones(mib, 1 << 17, dtype=torch.float64).sum())

def hold_and_free(mib):
    global held
    held = np.ones((mib, 1 << 17))
    del held
    return 0
"""


def measured(box, name: str, mib: int, budget: int) -> tuple[object, list[object]]:
    request = wire.Calls(name, ((wire.encode([mib]), wire.encode({})),), budget)
    reply = wire.Reply.from_json(box.runner.request(request))
    box.next_item()  # each call an item of its own: the test limits give an item 2 s
    (value,) = wire.decode(reply.value)
    (peak,) = reply.memory
    return value, peak


def test_the_sandbox_measures_a_calls_peak_whatever_library_allocates_it(box_factory):
    box = box_factory(CODE)
    value, (peak, method) = measured(box, "grow", 40, 8 * MIB)
    assert method in (memory.BALLAST, memory.RESET)
    assert isinstance(value, wire.RaisedError) and value.type == "MemoryBudgetExceeded"
    # The first measured call of a fresh sandbox also pages in the library code it runs for the
    # first time (45 MiB read for 40 on the user-namespaces rung, unprivileged).
    assert 38 * MIB <= peak < 48 * MIB
    value, (peak, _) = measured(box, "grow_torch", 24, 8 * MIB)
    assert isinstance(value, wire.RaisedError) and peak >= 22 * MIB  # and torch's first use of sum
    assert measured(box, "hold_and_free", 100, 1 << 40)[0] == 0
    value, (peak, _) = measured(box, "grow", 2, 8 * MIB)
    assert value == 2 * (1 << 17) and peak <= 8 * MIB
    value, (peak, _) = measured(box, "grow", 20, 8 * MIB)
    # After the 100 MiB held and freed, the ballast fills the gap down to half the budget, so a
    # peak past the budget reads low by up to that half (18 MiB for 20, unprivileged).
    assert isinstance(value, wire.RaisedError) and 16 * MIB <= peak < 22 * MIB
