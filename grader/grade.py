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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import __version__
from .bundle import Bundle, load_bundle
from .config import DEFAULT_ASSIGNMENT
from .extras import require_extra
from .limits import default_cpus, memory_warning
from .lms.intake import LmsInfo, class_folder
from .load import discover
from .outdir import check_out_dir, staged
from .pool import Pool, dask, local, start_local
from .regrade import Comparison, read_previous
from .report import Summary, Tally
from .reporters import DEFAULT_REPORTERS, Stage, open_reporter, reporter_class
from .results import RunInfo, SubmissionResult, zero_submission
from .sandbox.policy import SCRATCH, keep_from_same_uid
from .sandbox.spec import Hello
from .single import single
from .worker import Job


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def _job(bundle: Bundle, seed: int, class_dir: Path, outputs: Sequence[Path], examples: bool,
         diagnose: bool = True) -> Job:
    return Job(str(bundle.assignment.path), seed, str(class_dir), tuple(str(p) for p in outputs), examples,
               diagnose)


def sandbox_hello(bundle: Bundle, pool: Pool, *, seed: int, class_dir: Path, outputs: Sequence[Path] = (),
                  examples: bool = False, diagnose: bool = True) -> Hello:
    """The record of the sandbox that ``grade`` with the same arguments grades in: one worker's
    zygote's own (it warms that worker). ``SandboxError`` where the zygote refuses."""
    return Hello.from_json(json.loads(pool.hello(_job(bundle, seed, class_dir, outputs, examples, diagnose))))


def grade(
    bundle: Bundle,
    submissions: Sequence[Path],
    pool: Pool,
    *,
    seed: int,
    class_dir: Path,
    outputs: Sequence[Path] = (),
    examples: bool = False,
    diagnose: bool = True,
    log: Callable[[str], None] = _stderr,
) -> Iterator[SubmissionResult]:
    """Each of ``submissions`` (student folders under ``class_dir``) graded against ``bundle``.
    ``outputs`` are folders the sandboxes must not see, besides the class (the run's results).
    ``examples``: each item's public example runs too, and its pictures come with the result.
    ``diagnose``: an item that lost points is explained by the catalogue's known mistakes
    (``grader.diagnose``). A folder the grader itself fails on still gets a result (zero, saying so)."""
    job = _job(bundle, seed, class_dir, outputs, examples, diagnose)
    for folder, outcome in pool.grade(list(submissions), job) if submissions else ():
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


def grade_class(
    class_dir: Path,
    out_dir: Path,
    *,
    assignment_path: Path = DEFAULT_ASSIGNMENT,
    seed: int | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    reporters: Sequence[str] = DEFAULT_REPORTERS,
    reporter_options: Mapping[str, Mapping[str, Any]] | None = None,
    stages: Sequence[Stage] = (),
    hide: Sequence[Path] = (),
    progress: Callable[[int, int], None] | None = None,
    diagnose: bool = True,
    log: Callable[[str], None] = _stderr,
) -> RunOutcome:
    """Grade every student folder of ``class_dir`` against the bundle at ``assignment_path``
    (its folder or YAML) and write the ``reporters``' outputs into ``out_dir``. ``class_dir``
    may also be a Canvas or Moodle submissions download (its zip or unpacked folder).
    ``reporter_options``: keyword arguments of a reporter by its name (the Canvas gradebook).
    ``stages`` (the nbgrader gradebook) get the same results; ``hide`` are more folders the
    sandboxes must not see (a course folder, with its solutions). When ``out_dir`` holds an
    earlier run, the new one is compared with it (``changes.csv``, the summary's regrade).
    ``diagnose=False`` names no known mistakes (``grader.diagnose``)."""
    class_dir, out_dir = Path(class_dir).resolve(), Path(out_dir).resolve()
    if out_dir == class_dir or class_dir in out_dir.parents:
        raise ValueError(f"{out_dir}: the output folder must not be inside the class folder {class_dir}")
    check_out_dir(out_dir)
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs {jobs}: give 1 or more worker processes")
    if scheduler:
        require_extra("distributed", "cluster", "--scheduler")
    bundle = load_bundle(assignment_path)
    # An unknown name is a usage error before anything runs; a reporter that draws the public
    # examples says so by a true ``wants_examples``.
    chosen_classes = [reporter_class(name) for name in reporters]
    examples = any(getattr(cls, "wants_examples", False) for cls in chosen_classes)
    with class_folder(class_dir, bundle.assignment.notebooks) as (folder, lms):
        # The download itself holds every student's work: no sandbox sees it either.
        # (A zip's folder, unless the sandboxes have a fresh one anyway: /tmp.)
        download = [class_dir if class_dir.is_dir() else class_dir.parent] if lms is not None else []
        download = [p for p in download if p not in (Path("/"), *SCRATCH)]
        return _grade_class(bundle, class_dir, folder, lms, out_dir, seed=seed, jobs=jobs, scheduler=scheduler,
                            reporters=reporters, reporter_options=reporter_options or {}, examples=examples,
                            stages=stages, hide=[*hide, *download], progress=progress, diagnose=diagnose,
                            log=log)


def _grade_class(bundle: Bundle, download: Path, class_dir: Path, lms: LmsInfo | None, out_dir: Path, *,
                 seed: int | None, jobs: int | None, scheduler: str | None, reporters: Sequence[str],
                 reporter_options: Mapping[str, Mapping[str, Any]], examples: bool, stages: Sequence[Stage],
                 hide: Sequence[Path], progress: Callable[[int, int], None] | None, diagnose: bool,
                 log: Callable[[str], None]) -> RunOutcome:
    """``grade_class`` on a class folder (``download``'s, or ``download`` itself)."""
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
    jobs = min(jobs, max(1, len(folders)))  # no more workers start than students
    if not scheduler and jobs > 1:
        start_local()  # in the background, while the reporters open
    if not scheduler:
        warning = memory_warning(jobs)
        if warning:
            log(f"warning: {warning}")
    previous = read_previous(out_dir)
    started = time.perf_counter()
    tally = Tally(bundle.assignment)
    # One worker (one student, Gradescope): forked by its zygote, so torch is imported once.
    pools = dask(scheduler) if scheduler else local(jobs) if jobs > 1 else single(bundle.warm)
    with pools as pool, staged(out_dir) as write_dir:
        # Opened first: a reporter's own input (the Canvas gradebook) is told before the workers start.
        chosen_outputs = [open_reporter(name, write_dir, **reporter_options.get(name, {})) for name in reporters]
        if progress is not None and jobs > 1:
            # Before the workers' start-up, which takes seconds. One worker (one student) shows
            # its first result instead: the bar's machinery is no part of its start-up.
            progress(0, len(folders))
        outputs = (out_dir, write_dir, *hide)
        hello = sandbox_hello(bundle, pool, seed=seed, class_dir=class_dir, outputs=outputs, examples=examples,
                              diagnose=diagnose)
        isolation = hello.rung
        if isolation.degraded:
            keep_from_same_uid()  # this process writes the results
        for note in isolation.notes:
            log(f"warning: sandbox degraded: {note}")
        run = RunInfo(seed, str(bundle.assignment.path), str(download), __version__, jobs, scheduler or "local",
                      isolation.mode, isolation.namespaces, isolation.drop_uid, isolation.notes,
                      time.strftime("%Y-%m-%dT%H:%M:%S%z"), lms)
        log(f"grading {len(folders)} submission{'s' * (len(folders) != 1)} with seed {seed} "
            f"({jobs} worker{'s' * (jobs != 1)}: {jobs_source}; sandbox: {isolation.mode})")
        # The comparison closes first: its changes.csv is in the folder when the class report is written.
        comparison = None if previous is None else Comparison(previous, write_dir)
        reporters_and_stages = [*([comparison] if comparison else []), *chosen_outputs, *stages]
        for output in reporters_and_stages:
            output.start(bundle, run)
        stream = grade(bundle, folders, pool, seed=seed, class_dir=class_dir, outputs=outputs,
                       examples=examples, diagnose=diagnose, log=log)
        for done, result in enumerate(stream, start=1):
            for output in reporters_and_stages:
                output.add(result)
            tally.add(result)
            if progress is not None:
                progress(done, len(folders))
        for output in reporters_and_stages:
            output.close()
    notes = [*(lms.notes if lms else ()), *(line for output in chosen_outputs
                                             for line in getattr(output, "summary_lines", list)())]
    if comparison is not None and comparison.regrade is not None:
        notes += comparison.regrade.lines()
    summary = replace(tally.summary(), skipped=found.skipped, notes=tuple(notes))
    return RunOutcome(seed, summary, out_dir, time.perf_counter() - started)
