"""The instructor's grading run as a library call: discover, grade in parallel, report."""

from __future__ import annotations

import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .checks import known_checks
from .config import DEFAULT_ASSIGNMENT, Assignment, load_assignment
from .load import discover
from .pool import Job, default_jobs, run_dask, run_local
from .report import ReportWriter, Summary
from .results import CheckResult, ItemResult, SubmissionResult
from .sandbox.policy import keep_from_same_uid, probe


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
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> RunOutcome:
    """Grade every student folder of ``class_dir`` into ``out_dir``."""
    class_dir, out_dir = Path(class_dir).resolve(), Path(out_dir).resolve()
    if out_dir == class_dir or class_dir in out_dir.parents:
        raise ValueError(f"{out_dir}: the output folder must not be inside the class folder {class_dir}")
    assignment = load_assignment(assignment_path, known_checks())
    folders = discover(class_dir)
    seed = secrets.randbelow(2**31) if seed is None else seed
    jobs = jobs or default_jobs()
    isolation = probe()
    if isolation.degraded:
        keep_from_same_uid()  # this process writes the results
    for note in isolation.notes:
        log(f"warning: sandbox degraded: {note}")
    run = {
        "seed": seed, "assignment": str(assignment.path), "class": str(class_dir),
        "grader_version": __version__, "jobs": jobs, "scheduler": scheduler or "local",
        "sandbox": isolation.to_json(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    log(f"grading {len(folders)} submissions with seed {seed} ({jobs} workers, sandbox: {isolation.mode})")
    started = time.perf_counter()
    writer = ReportWriter(out_dir, assignment, run)
    job = Job(str(assignment.path), seed, str(class_dir), str(out_dir))
    workers = min(jobs, max(1, len(folders)))
    outcomes = run_dask(folders, job, scheduler) if scheduler else run_local(folders, job, workers)
    done = 0
    for folder, result in outcomes if folders else ():
        if isinstance(result, BaseException):
            log(f"error: the grader failed on {folder.name}: {type(result).__name__}: {result}")
            writer.add(_failed(folder.name, assignment, f"the grader itself failed ({type(result).__name__}); "
                                                       "ask your instructor"))
        else:
            writer.add(SubmissionResult.from_json(result))
        done += 1
        if progress is not None:
            progress(done, len(folders))
    summary = writer.close()
    return RunOutcome(seed, summary, out_dir, time.perf_counter() - started, isolation.notes)


def _failed(student: str, assignment: Assignment, why: str) -> SubmissionResult:
    items = tuple(
        ItemResult(i.name, i.notebook, i.points, 0.0,
                   tuple(CheckResult(n, p, 0.0, False, why) for n, p in i.checks), "", 0, why)
        for i in assignment.items
    )
    return SubmissionResult(student, 0.0, assignment.max_score, items, (), 0.0)
