"""Grading as a library call: a stream of typed results, and the instructor's run that feeds
it to reporters.

``grade`` yields one ``SubmissionResult`` per student folder, in completion order, from
whichever scheduler runs the workers; ``grade_class`` is the CLI's run: discover, grade,
hand each result to the chosen reporters and tally the summary.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from . import __version__
from .bundle import Bundle, load_bundle
from .config import DEFAULT_ASSIGNMENT
from .extras import require_extra
from .limits import default_cpus, memory_warning
from .load import discover
from .outdir import check_out_dir, staged
from .pool import Scheduler, dask, local, start_local
from .report import Summary, Tally
from .reporters import DEFAULT_REPORTERS, Stage, open_reporter, reporter_class
from .results import RunInfo, SubmissionResult, zero_submission
from .sandbox.policy import keep_from_same_uid, probe
from .worker import Job


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def grade(
    bundle: Bundle,
    submissions: Sequence[Path],
    scheduler: Scheduler,
    *,
    seed: int,
    class_dir: Path,
    outputs: Sequence[Path] = (),
    examples: bool = False,
    log: Callable[[str], None] = _stderr,
) -> Iterator[SubmissionResult]:
    """Each of ``submissions`` (student folders under ``class_dir``) graded against ``bundle``.
    ``outputs`` are folders the sandboxes must not see, besides the class (the run's results).
    ``examples``: each item's public example runs too, and its pictures come with the result.
    A folder the grader itself fails on still gets a result (zero, saying so)."""
    job = Job(str(bundle.assignment.path), seed, str(class_dir), tuple(str(p) for p in outputs), examples)
    for folder, outcome in scheduler(list(submissions), job) if submissions else ():
        if isinstance(outcome, BaseException):
            log(f"error: the grader failed on {folder.name}: {type(outcome).__name__}: {outcome}")
            yield zero_submission(folder.name, bundle.assignment,
                                  f"the grader itself failed ({type(outcome).__name__}); ask your instructor")
        else:
            yield SubmissionResult.from_json(json.loads(outcome))


@dataclass(frozen=True)
class RunOutcome:
    seed: int
    summary: Summary
    out_dir: Path
    seconds: float
    isolation_notes: tuple[str, ...]


def grade_class(
    class_dir: Path,
    out_dir: Path,
    *,
    assignment_path: Path = DEFAULT_ASSIGNMENT,
    seed: int | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    reporters: Sequence[str] = DEFAULT_REPORTERS,
    stages: Sequence[Stage] = (),
    hide: Sequence[Path] = (),
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] = _stderr,
) -> RunOutcome:
    """Grade every student folder of ``class_dir`` against the bundle at ``assignment_path``
    (its folder or YAML) and write the ``reporters``' outputs into ``out_dir``. ``stages``
    (the nbgrader gradebook) get the same results; ``hide`` are more folders the sandboxes
    must not see (a course folder, with its solutions)."""
    class_dir, out_dir = Path(class_dir).resolve(), Path(out_dir).resolve()
    if out_dir == class_dir or class_dir in out_dir.parents:
        raise ValueError(f"{out_dir}: the output folder must not be inside the class folder {class_dir}")
    check_out_dir(out_dir)
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs {jobs}: give 1 or more worker processes")
    if scheduler:
        require_extra("distributed", "cluster", "--scheduler")
    else:
        start_local()
    bundle = load_bundle(assignment_path)
    # An unknown name is a usage error before anything runs; a reporter that draws the public
    # examples says so by a true ``wants_examples``.
    chosen_classes = [reporter_class(name) for name in reporters]
    examples = any(getattr(cls, "wants_examples", False) for cls in chosen_classes)
    found = discover(class_dir, bundle.assignment.name, bundle.assignment.notebooks)
    folders = list(found.students)
    for skipped in found.skipped:
        log(f"skipped {skipped}")
    seed = secrets.randbelow(2**31) if seed is None else seed
    if jobs is None:
        cpus = default_cpus()
        jobs, jobs_source = cpus.count, cpus.source
    else:
        jobs_source = "--jobs"
    if not scheduler:
        warning = memory_warning(min(jobs, max(1, len(folders))))  # no more workers start than students
        if warning:
            log(f"warning: {warning}")
    isolation = probe()
    if isolation.degraded:
        keep_from_same_uid()  # this process writes the results
    for note in isolation.notes:
        log(f"warning: sandbox degraded: {note}")
    run = RunInfo(seed, str(bundle.assignment.path), str(class_dir), __version__, jobs, scheduler or "local",
                  isolation.mode, isolation.namespaces, isolation.drop_uid, isolation.notes,
                  time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    log(f"grading {len(folders)} submissions with seed {seed} ({jobs} worker{'s' * (jobs != 1)}: {jobs_source}; "
        f"sandbox: {isolation.mode})")
    started = time.perf_counter()
    tally = Tally(bundle.assignment)
    chosen = dask(scheduler) if scheduler else local(jobs)
    with staged(out_dir) as write_dir:
        outputs = [*(open_reporter(name, write_dir) for name in reporters), *stages]
        for output in outputs:
            output.start(bundle, run)
        if progress is not None:
            progress(0, len(folders))  # before the workers' start-up, which takes seconds
        stream = grade(bundle, folders, chosen, seed=seed, class_dir=class_dir, outputs=(out_dir, write_dir, *hide),
                       examples=examples, log=log)
        for done, result in enumerate(stream, start=1):
            for output in outputs:
                output.add(result)
            tally.add(result)
            if progress is not None:
                progress(done, len(folders))
        for output in outputs:
            output.close()
    summary = replace(tally.summary(), skipped=found.skipped)
    return RunOutcome(seed, summary, out_dir, time.perf_counter() - started, isolation.notes)
