"""Reloads after a crash come from one budget per student (#53): a notebook that loaded in
13.5 s with every function crashing took 137.5 s of a worker; now its reloads take at most
``limits.load_seconds`` and the one that crosses it."""

from __future__ import annotations

from typing import Any

import pytest

from grader import wire
from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.runners.inprocess import InProcessRunner
from grader.runners.protocol import ItemOutput, LoadOutcome, RunnerLost
from grader.submissions.load import Cell, SourceFile, Submission
from grader.worker import score
from grader.worker.score import grade_submission

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
A = BUNDLE.assignment
LIMIT = A.limits.load_seconds
NUMPY = tuple(item.name for item in A.items_of("attention_numpy"))
SUBMISSION = Submission("s", DEFAULT_ASSIGNMENT.parent, (
    SourceFile("attention_numpy", "attention_numpy.py", (Cell(1, BUNDLE.reference_source("attention_numpy")),)),
    SourceFile("attention_torch", None, (), "attention_torch.ipynb was not submitted")))


class Clock:
    """The time score.py reads: it moves only when a runner loads or an item runs."""

    now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    ticking = Clock()
    monkeypatch.setattr(score, "monotonic", ticking)
    return ticking


class Slow:
    """A copy of the reference that takes ``load`` seconds to load and crashes (``crash``) or
    loads itself again (``threads``: threads left running) in the items named."""

    opened = 0

    def __init__(self, clock: Clock, source: SourceFile, load: float, crash: tuple[str, ...] = (),
                 threads: tuple[str, ...] = ()):
        Slow.opened += 1
        clock.now += load
        self.clock, self.cost = clock, load
        self.inner = InProcessRunner.from_source(source)
        self.load = self.inner.load
        self.crash, self.threads = crash, threads

    def begin_item(self, item: str) -> None:
        self.item = item

    def request(self, message: wire.Request) -> Any:
        if self.item in self.crash:
            raise RunnerLost("it was killed")
        return self.inner.request(message)

    def end_item(self) -> ItemOutput:
        if self.item in self.threads:  # as the sandbox's runner does: a fresh copy for the next item
            Slow.opened += 1
            self.clock.now += self.cost
            self.load = LoadOutcome((), "")
        return ItemOutput("", 0)

    def close(self) -> None:
        pass


def graded(clock: Clock, load: float, **kinds: tuple[str, ...]) -> dict[str, tuple[float, str]]:
    Slow.opened = 0
    result = grade_submission(SUBMISSION, BUNDLE, 3, lambda source: Slow(clock, source, load, **kinds))
    return {item.name: (item.earned, item.checks[0].message) for item in result.items if item.name in NUMPY}


def test_a_slow_notebook_that_crashes_in_every_item_reloads_within_the_budget(clock):
    got = graded(clock, 13.5, crash=NUMPY)
    reloads = int(LIMIT // 13.5) + 1  # the one that crosses the budget is the last
    assert Slow.opened == 1 + reloads < len(NUMPY)
    assert clock.now <= 13.5 + 2 * LIMIT
    refused = [name for name, (_, why) in got.items() if why.startswith("not graded: this submission's notebooks")]
    assert refused == list(NUMPY[reloads + 1:])
    assert f"loaded again {reloads} time(s)" in got[NUMPY[-1]][1] and "(limits.load_seconds)" in got[NUMPY[-1]][1]


def test_reloads_at_the_end_of_items_come_from_the_same_budget(clock):
    got = graded(clock, 13.5, threads=NUMPY)
    reloads = int(LIMIT // 13.5) + 1
    assert Slow.opened == 1 + reloads and clock.now <= 13.5 + 2 * LIMIT
    graded_items = NUMPY[:reloads]  # each kept its points; the copy that crossed the budget grades nothing
    assert all(got[name][0] == A.item(name).points for name in graded_items)
    assert all(got[name] == (0.0, got[NUMPY[-1]][1]) for name in NUMPY[reloads:])


def test_a_quick_notebook_that_crashes_reloads_for_every_item_it_needs(clock):
    crash = NUMPY[::2]
    got = graded(clock, 0.5, crash=crash)
    assert Slow.opened == 1 + len(crash)
    assert all(got[name][0] == A.item(name).points for name in NUMPY if name not in crash)
