"""One submission through the checks: the runner protocol and the item loop.

A *runner* is one loaded copy of a student's notebook that answers calls with plain
data: the sandboxed child in production, or the in-process runner that the nbgrader
comparison and the benchmark's floor use. The checks never see which one it is.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from .checks import CHECKS
from .checks.base import CheckFailed, Trial
from .config import Assignment, Item
from .load import SourceFile, Submission
from .results import CheckResult, ItemResult, NotebookReport, SubmissionResult


class RunnerLost(Exception):
    """The runner cannot answer any more: its process died or was killed."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


class ItemTimeout(RunnerLost):
    """The item used up its time; the runner was killed."""


@dataclass(frozen=True)
class LoadReport:
    cell_errors: tuple[tuple[int, str], ...]  # (cell number, "ValueError: ...")
    output: str
    failure: str | None = None  # the notebook could not be loaded at all
    stopped: tuple[int, ...] = ()  # cells that ran too long and were left out


@dataclass(frozen=True)
class ItemOutput:
    text: str
    dropped_bytes: int


class Runner(Protocol):
    load: LoadReport

    def begin_item(self, item: str) -> None: ...

    def request(self, message: dict[str, Any]) -> Any: ...

    def end_item(self) -> ItemOutput: ...

    def close(self) -> None: ...


# Opens a fresh runner for a notebook (again after a crash or a timeout).
RunnerFactory = Callable[[SourceFile], Runner]


def seed_for(seed: int, *names: str) -> list[int]:
    """An rng seed for one check: the run's seed and stable hashes of the names."""
    return [seed, *(zlib.crc32(name.encode()) for name in names)]


def grade_submission(
    submission: Submission, assignment: Assignment, seed: int, open_runner: RunnerFactory
) -> SubmissionResult:
    started = time.perf_counter()
    items: list[ItemResult] = []
    notebooks: list[NotebookReport] = []
    for source in submission.files:
        nb_items = assignment.items_of(source.notebook)
        report, results = _grade_notebook(source, nb_items, seed, open_runner)
        notebooks.append(report)
        items.extend(results)
    order = [item.name for item in assignment.items]
    items.sort(key=lambda r: order.index(r.name))
    return SubmissionResult(
        student=submission.student,
        score=round(sum(r.earned for r in items), 6),
        max_score=assignment.max_score,
        items=tuple(items),
        notebooks=tuple(notebooks),
        seconds=round(time.perf_counter() - started, 4),
    )


def _grade_notebook(
    source: SourceFile, items: Sequence[Item], seed: int, open_runner: RunnerFactory
) -> tuple[NotebookReport, list[ItemResult]]:
    if source.problem is not None:
        report = NotebookReport(source.notebook, source.path, source.problem, (), "")
        return report, [_zero(item, source.problem) for item in items]
    first = open_runner(source)
    runner: Runner | None = first
    load = first.load
    report = NotebookReport(source.notebook, source.path, load.failure, load.cell_errors, load.output)
    results = []
    for item in items:
        if runner is None:
            runner = open_runner(source)  # the previous item's crash or hang took the last copy
        if runner.load.stopped:  # no copy of the notebook waits for those cells again
            source = replace(source, cells=tuple(c for c in source.cells if c.number not in runner.load.stopped))
        if runner.load.failure is not None:
            results.append(_zero(item, runner.load.failure))
            continue
        result, alive = run_item(item, runner, seed)
        results.append(result)
        if not alive:
            runner.close()
            runner = None
    if runner is not None:
        runner.close()
    return report, results


def run_item(item: Item, runner: Runner, seed: int) -> tuple[ItemResult, bool]:
    """Run an item's checks; returns the result and whether the runner is still usable."""
    checks: list[CheckResult] = []
    error: str | None = None
    alive = True
    runner.begin_item(item.name)
    for name, points in item.checks:
        if error is not None:
            checks.append(CheckResult(name, points, 0.0, False, f"not run: {error}"))
            continue
        trial = Trial(item=item, check=name, seed=seed, rng_seed=seed_for(seed, item.name, name), runner=runner)
        try:
            CHECKS[item.name][name](trial)
        except CheckFailed as failed:
            checks.append(CheckResult(name, points, 0.0, False, failed.message, failed.margin))
        except RunnerLost as lost:
            alive = False
            error = lost.why
            checks.append(CheckResult(name, points, 0.0, False, lost.why))
        else:
            checks.append(CheckResult(name, points, points, True, ""))
    output = runner.end_item() if alive else ItemOutput("", 0)
    earned = round(sum(c.earned for c in checks), 6)
    result = ItemResult(item.name, item.notebook, item.points, earned, tuple(checks), output.text,
                        output.dropped_bytes, error)
    return result, alive


def _zero(item: Item, why: str) -> ItemResult:
    checks = tuple(CheckResult(name, points, 0.0, False, why) for name, points in item.checks)
    return ItemResult(item.name, item.notebook, item.points, 0.0, checks, "", 0, why)
