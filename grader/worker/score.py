"""One submission through the checks: the item loop, with partial credit.

Each notebook of the submission is loaded in a runner (``grader.runners.protocol``); each item's
checks, looked up in the bundle's own registry, call into it. A crash or a hang costs the
item it happens in, and a fresh runner grades the rest, within a budget of reloads per
student (``Loads``). With ``examples``, the public example of each item
(``Registry.example``) runs after the notebook's checks, for the pictures.
"""

from __future__ import annotations

import json
import re
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from time import monotonic

from ..assignment.bundle import Bundle
from ..assignment.config import Item
from ..assignment.registry import Registry
from ..checks.base import CheckFailed, Trial
from ..diagnosis.record import Recording
from ..records.answers import Answer, WrittenRow, row_of
from ..records.code import ItemCode
from ..records.results import CheckResult, Diagnosis, ItemResult, NotebookResult, SubmissionResult, zero_item
from ..runners.protocol import ItemOutput, Runner, RunnerFactory, RunnerLost
from ..submissions.load import SourceFile, Submission

# The known mistakes that explain an item's lost points, from what its checks asked and got
# (``grader.diagnosis.diagnose.Diagnoser.diagnose``).
Diagnose = Callable[[Item, Recording, Sequence[CheckResult]], tuple[Diagnosis, ...]]


def seed_for(seed: int, *names: str) -> list[int]:
    """An rng seed for one check: the run's seed and stable hashes of the names."""
    return [seed, *(zlib.crc32(name.encode()) for name in names)]


def grade_submission(
    submission: Submission, bundle: Bundle, seed: int, open_runner: RunnerFactory, *, examples: bool = False,
    diagnose: Diagnose | None = None, behaviour: bool = False, code: bool = False,
) -> SubmissionResult:
    started = time.perf_counter()
    assignment = bundle.assignment
    items: list[ItemResult] = []
    notebooks: list[NotebookResult] = []
    loads = Loads(open_runner, assignment.limits.load_seconds)
    asked = _Asked(examples, diagnose, behaviour, code)
    for source in submission.files:
        nb_items = assignment.items_of(source.notebook)
        report, results = _grade_notebook(source, nb_items, bundle.checks, seed, loads, asked)
        notebooks.append(report)
        items.extend(results)
    order = [item.name for item in assignment.items]
    items.sort(key=lambda r: order.index(r.name))
    return SubmissionResult(
        student=submission.student,
        score=round(sum(r.earned for r in items), 6),
        max_score=assignment.total_points,
        items=tuple(items),
        notebooks=tuple(notebooks),
        seconds=round(time.perf_counter() - started, 4),
        written=written_answers(submission, bundle),
        written_max=assignment.written_points,
    )


@dataclass
class Loads:
    """A student's notebooks loaded by ``open_runner``: the first load of each as it comes,
    every later one (after a crash, a hang or threads left running) from one budget for the
    whole submission. Those reloads may take ``seconds`` (``limits.load_seconds``) together, and
    the one that crosses it is the last, so they cost a student at most twice that. Past it,
    the items still to grade are not graded and say why; the ones graded keep their points. A
    notebook that loaded in 13.5 s with every function crashing took 137.5 s without it."""

    open_runner: RunnerFactory
    seconds: float
    spent: float = 0.0
    count: int = 0

    def again(self, source: SourceFile) -> Runner | None:
        """A fresh copy of ``source``'s notebook, or None once the reloads' budget is spent."""
        if self.spent >= self.seconds:
            return None
        started = monotonic()
        runner = self.open_runner(source)
        self.charge(monotonic() - started)
        return runner

    def charge(self, seconds: float) -> None:
        self.count += 1
        self.spent += seconds

    @property
    def why(self) -> str:
        return (f"not graded: this submission's notebooks were loaded again {self.count} time(s) after crashes, "
                f"hangs or threads left running, {self.spent:.1f} s in all, past the {self.seconds:g} s that "
                "those reloads get together (limits.load_seconds)")


def written_answers(submission: Submission, bundle: Bundle) -> tuple[WrittenRow, ...]:
    """The submission's answer to each written question, as read, none graded yet (the run
    merges the marks: ``grader.written.merge``)."""
    answers = {(source.notebook, found.question): found for source in submission.files for found in source.answers}
    rows = []
    for question in bundle.assignment.written:
        found = answers.get((question.notebook, question.id))
        answer = Answer.of(submission.student, question.id, found.text if found else None, found.note if found else "")
        rows.append(row_of(answer, None))
    return tuple(rows)


@dataclass(frozen=True)
class _Asked:
    """What ``grade_submission`` was asked besides the scores."""

    examples: bool
    diagnose: Diagnose | None
    behaviour: bool
    code: bool


def _grade_notebook(
    source: SourceFile, items: Sequence[Item], checks: Registry, seed: int, loads: Loads, asked: _Asked,
) -> tuple[NotebookResult, list[ItemResult]]:
    if source.problem is not None:
        report = NotebookResult(source.notebook, source.path, source.problem, (), "", source.note)
        return report, [zero_item(item, source.problem) for item in items]
    evidence, skipped = _code(source, items) if asked.code else (None, ())
    first = loads.open_runner(source)
    runner: Runner | None = first
    load = first.load
    labels = {cell.number: cell.label for cell in source.cells}
    errors = tuple((labels.get(n, f"code cell {n}"), e) for n, e in load.cell_errors)
    last = source.cells[-1].label if source.cells else None
    report = NotebookResult(source.notebook, source.path, load.failure, errors, named_cells(load.output, labels),
                            source.note, last, evidence, skipped)
    results = []
    for item in items:
        if runner is None:
            runner = loads.again(source)  # the previous item's crash or hang took the last copy
            if runner is None:
                results.append(zero_item(item, loads.why))
                continue
        if runner.load.stopped:  # no copy of the notebook waits for those cells again
            source = replace(source, cells=tuple(c for c in source.cells if c.number not in runner.load.stopped))
        if runner.load.failure is not None:
            results.append(zero_item(item, runner.load.failure))
            continue
        loaded, started = runner.load, monotonic()
        result, alive = run_item(item, runner, seed, checks, asked.diagnose, asked.behaviour)
        results.append(result)
        if alive and runner.load is not loaded:  # the runner loaded a fresh copy at the item's end
            loads.charge(monotonic() - started)  # with the item: the runner times neither apart
            alive = loads.spent < loads.seconds  # past the budget, the copy it crossed it with is the last
        if not alive:
            runner.close()
            runner = None
    if asked.examples and results:
        runner = runner or loads.again(source)
        if runner is not None and runner.load.failure is None:
            results = run_examples(results, items, runner, seed, checks)
    if runner is not None:
        runner.close()
    return report, [replace(r, output=named_cells(r.output, labels)) if "<cell " in r.output else r for r in results]


CODE_BYTES = 64 * 1024 * 1024  # of a notebook's code as sent: two notebooks' stay far below a frame's limit


def _code(source: SourceFile, items: Sequence[Item]) -> tuple[tuple[ItemCode, ...] | None, tuple[str, ...]]:
    """The code of each of ``items`` the student defined, from every cell as read (the integrity
    report's: here, in the worker, rather than in the run's main process, one student after
    another); None where it is too large to send (helpers of megabytes each item reaches: the
    frame would fail the student's result, which must not change with the report). And the
    cells left out, too large to parse (``grader.integrity.cells``), each with why."""
    from ..integrity.cells import within  # only a run with the integrity report needs it
    from ..integrity.fingerprints import definitions

    cells, skipped = within(source.cells)
    found = definitions(cells, [item.name for item in items])
    code = tuple(found[name] for name in sorted(found))
    return (code if len(json.dumps([c.to_json() for c in code], ensure_ascii=False)) <= CODE_BYTES else None,
            tuple(skipped))


_CELL_NAME = re.compile(r"<cell (\d+)>(?::(\d+):?)?")


def named_cells(text: str, labels: dict[int, str]) -> str:
    """Printed output (a warning's ``<cell 26>:10: RuntimeWarning: ...``) with each cell named
    as everywhere else: ``code cell 26 (def f(x):), line 10:``."""
    def name(match: re.Match[str]) -> str:
        label = labels.get(int(match.group(1)), f"code cell {match.group(1)}")
        return label + (f", line {match.group(2)}:" if match.group(2) else "")

    return _CELL_NAME.sub(name, text)


def run_item(item: Item, runner: Runner, seed: int, registry: Registry,
             diagnose: Diagnose | None = None, behaviour: bool = False) -> tuple[ItemResult, bool]:
    """Run an item's checks; returns the result and whether the runner is still usable. With
    ``diagnose``, an item that lost points gets the known mistakes that explain it; with
    ``behaviour``, the digest of what it returned (``grader.integrity.behaviour``)."""
    recording = Recording(runner) if diagnose is not None or behaviour else None
    if recording is not None:
        runner = recording
    checks: list[CheckResult] = []
    error: str | None = None
    alive = True
    runner.begin_item(item.name)
    for name, points in item.checks:
        if error is not None:
            checks.append(CheckResult(name, points, 0.0, False, f"not run: {error}"))
            continue
        trial = Trial(item=item, check=name, seed=seed, rng_seed=seed_for(seed, item.name, name), runner=runner)
        if recording is not None:
            recording.check = name
        try:
            registry.get(item.name, name)(trial)
        except CheckFailed as failed:
            checks.append(CheckResult(name, points, 0.0, False, failed.message, failed.margin))
        except RunnerLost as lost:
            alive = False
            error = lost.why
            checks.append(CheckResult(name, points, 0.0, False, lost.why))
        else:
            checks.append(CheckResult(name, points, points, True, "", closest=trial.closest))
    output = runner.end_item() if alive else ItemOutput("", 0)
    earned = round(sum(c.earned for c in checks), 6)
    diagnoses: tuple[Diagnosis, ...] = ()
    if recording is not None and diagnose is not None and earned < item.points:
        diagnoses = diagnose(item, recording, checks)
    returned = ""
    raised_on: tuple[str, ...] = ()
    if recording is not None and behaviour and earned < item.points:
        from ..integrity.behaviour import digest, raised  # only a run with the integrity report needs it

        returned, raised_on = digest(recording.exchanges), raised(recording.exchanges)
    result = ItemResult(item.name, item.notebook, item.points, earned, tuple(checks), output.text,
                        output.dropped_bytes, error, diagnoses=diagnoses, behaviour=returned,
                        raised=raised_on if returned else ())
    return result, alive


def run_examples(results: list[ItemResult], items: Sequence[Item], runner: Runner, seed: int,
                 registry: Registry) -> list[ItemResult]:
    """``results`` with the pictures of each item's public example, made after the notebook's
    checks, all in one bracket with a time limit of its own: the items' scores and output are
    the same with or without. An item that crashed or hung in its checks gets none, and a
    crash or hang here leaves the rest without (the runner is closed by the caller)."""
    runner.begin_item("(public examples)")
    pictured = []
    for item, result in zip(items, results, strict=True):
        example = registry.example_of(item.name)
        if example is None or result.error is not None:
            pictured.append(result)
            continue
        trial = Trial(item=item, check="(public example)", seed=seed, rng_seed=seed_for(seed, item.name),
                      runner=runner)
        try:
            pictures = tuple(example(trial))
        except RunnerLost:
            return pictured + results[len(pictured):]
        except Exception:  # pictures are extra: a bundle's example that fails (torch missing, say) costs them only
            pictures = ()
        pictured.append(replace(result, examples=pictures))
    runner.end_item()  # what the examples printed is no item's output
    return pictured
