"""Grading as a library call: a stream of typed results, and the instructor's run that feeds
it to reporters.

``grade`` yields one ``SubmissionResult`` per student folder, in completion order, from
whichever scheduler runs the workers; ``grade_class`` is the CLI's run: discover, grade,
hand each result to the chosen reporters and tally the summary.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..assignment.bundle import Bundle, Outline, load_bundle, read_outline
from ..assignment.config import DEFAULT_ASSIGNMENT, Assignment
from ..extras import require_extra
from ..records.job import Job, Pool, SubmissionFailed
from ..records.results import RunInfo, SubmissionResult, zero_submission
from ..records.rung import Rung
from ..regrade import Previous, read_previous
from ..reporters import Reporter, needs_of, open_reporter, reporter_class, with_core
from ..sandbox.ladder import keep_from_same_uid
from ..sandbox.spec import Hello
from ..submissions.load import ClassFolderError, Roster, discover, student_id
from ..submissions.other_assignment import other_assignment
from ..written.live import LiveMarks
from ..written.marks import WrittenError
from .host import default_cpus, memory_warning
from .intake import Intake, intake
from .local import local
from .outdir import check_out_dir, earlier_formats, locked, staged
from .plan import NO_ASKS, Asks, Outputs, RunPlan, ToGrade, WorkerPlan
from .summary import Summary, Tally
from .writeout import Target, write_out


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


@dataclass(frozen=True)
class Workers:
    """A run's workers, started (their imports maybe still under way)."""

    pool: Pool
    count: int
    source: str  # what chose ``count``: --jobs, or the cores this process may use
    scheduler: str  # where they run: "local", or a Dask scheduler's address


@contextlib.contextmanager
def start_workers(
    bundle: Bundle | Outline,
    students: int,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    log: Callable[[str], None] = _stderr,
) -> Iterator[Workers]:
    """Start a run's workers (``jobs``, else the cores this process may use; never more than
    ``students``) on this machine or a Dask ``scheduler``, with ``bundle``'s warm modules, and
    return at once: their imports (seconds of torch) overlap whatever the caller does next,
    until ``prepare_run``'s hello. Given an ``Outline``, they start before the bundle's own
    code is imported. The workers end with the ``with``."""
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs {jobs}: give 1 or more worker processes")
    if jobs is None:
        cpus = default_cpus()
        jobs, source = cpus.count, cpus.source
    else:
        source = "--jobs"
    jobs = min(jobs, max(1, students))  # no more workers start than students
    if not scheduler:
        warning = memory_warning(jobs)
        if warning:
            log(f"warning: {warning}")
    if scheduler:
        from .pool import dask  # imports numpy, which a local run's main process needs later

        pools = dask(scheduler)
    else:
        # Every worker and its zygote forked from one warm image: torch imported once. One
        # student does not pay for collapsing the image into huge pages (it costs more than
        # its two sandboxes save).
        pools = local(jobs, bundle.warm, bundle.warm_for_students, collapse=students > 1)
    with pools as pool:
        yield Workers(pool, jobs, source, scheduler or "local")


@dataclass(frozen=True)
class Run:
    """A run ready to grade: its seed, its warm workers, and the sandbox they grade in."""

    bundle: Bundle
    job: Job
    workers: Workers
    rung: Rung  # one worker's zygote's record of its rung


@contextlib.contextmanager
def prepare_run(
    bundle: Bundle,
    class_dir: Path,
    students: int,
    *,
    seed: int | None = None,
    jobs: int | None = None,
    workers: Workers | None = None,
    asks: Asks = NO_ASKS,
    log: Callable[[str], None] = _stderr,
) -> Iterator[Run]:
    """The setup every run shares, the class run's and the audit's: the seed (drawn unless
    given), the ``workers`` (started here unless given: ``start_workers`` with ``jobs``), warm,
    and the sandbox record of one worker's zygote; the start-up line and any degraded rung's
    warnings go to ``log``. ``asks``: what the workers do besides the scores, and the folders
    the sandboxes must not see besides ``class_dir`` (the run's outputs). ``SandboxError``
    where the zygote refuses. Workers started here end with the ``with``."""
    seed = secrets.randbelow(2**31) if seed is None else seed
    job = asks.job(bundle.assignment.path, seed, class_dir)
    with contextlib.ExitStack() as stack:
        if workers is None:
            workers = stack.enter_context(start_workers(bundle, students, jobs=jobs, log=log))
        count = workers.count
        rung = Hello.from_json(json.loads(workers.pool.hello(job))).given
        if rung.without_namespaces:
            keep_from_same_uid()  # this process writes the results
        for note in rung.notes:
            log(f"warning: sandbox degraded: {note}")
        log(f"grading {students} submission{'s' * (students != 1)} with seed {seed} "
            f"({count} worker{'s' * (count != 1)}: {workers.source}; sandbox: {rung.name})")
        yield Run(bundle, job, workers, rung)


def grade(run: Run, submissions: Sequence[Path], log: Callable[[str], None] = _stderr) -> Iterator[SubmissionResult]:
    """Each of ``submissions`` (student folders under the run's class folder) graded, in
    completion order. With the run's ``examples``, each item's public example runs too, and
    its pictures come with the result; with ``diagnose``, an item that lost points is
    explained by the catalogue's known mistakes (``grader.diagnosis``). A folder the grader
    itself fails on still gets a result (zero, saying so), and so does one that failed by
    what it did (``SubmissionFailed``: its row gives the reason)."""
    for folder, outcome in run.workers.pool.grade(list(submissions), run.job) if submissions else ():
        student = student_id(folder)  # the id every output goes by, as the worker's result has it
        if isinstance(outcome, SubmissionFailed):
            log(f"error: {student}: {outcome}")
            yield zero_submission(student, run.bundle.assignment, str(outcome))
        elif isinstance(outcome, BaseException):
            log(f"error: the grader failed on {student}: {type(outcome).__name__}: {outcome}")
            yield zero_submission(student, run.bundle.assignment,
                                  f"the grader itself failed ({type(outcome).__name__}); ask your instructor")
        else:
            yield SubmissionResult.from_json(json.loads(outcome))


@dataclass(frozen=True)
class RunOutcome:
    seed: int
    summary: Summary
    out_dir: Path  # the output folder; or where the results were kept, when it was not replaced
    seconds: float
    refused: str = ""  # why the output folder was not replaced, in one line


def grade_class(
    class_dir: Path,
    out_dir: Path,
    *,
    assignment_path: Path = DEFAULT_ASSIGNMENT,
    seed: int | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] = _stderr,
) -> RunOutcome:
    """Grade every student folder of ``class_dir`` (or of a Canvas or Moodle submissions
    download: its zip or unpacked folder) against the bundle at ``assignment_path`` (its folder
    or YAML) into ``out_dir``, in the core formats: ``run_plan``'s plainest plan."""
    return run_plan(RunPlan(ToGrade(Path(class_dir)), Outputs(Path(out_dir)), assignment_path,
                            WorkerPlan(seed, jobs, scheduler)), progress, log)


def run_plan(plan: RunPlan, progress: Callable[[int, int], None] | None = None,
             log: Callable[[str], None] = _stderr) -> RunOutcome:
    """Grade every student of ``plan.to_grade`` (``grader.run.intake``) and write the core
    outputs and the ``plan.outputs.formats``' into its ``out_dir`` (``grader.reporters.with_core``).
    One run at a time writes ``out_dir``: another is an error naming it, or with ``wait`` is
    waited for. The reporters get what they declared they need (``grader.reporters.Needs``);
    the ``stages`` (the nbgrader gradebook) get the same results. When ``out_dir`` holds an
    earlier run, the new one is compared with it (``changes.csv``, the summary's regrade).
    ``written``: files of marks of the written answers (``grader.written.marks``), merged over
    the marks ``held_marks`` names with the file they are held in (nbgrader's gradebook), and
    those over the ones the output folder's written.csv holds, as it is when the class is
    written (marks typed there during the run count, ``grader.run.writeout``); a platform
    that holds marks is their record, so its marks replace that file's (a mark cleared there is
    cleared here)."""
    if plan.outputs.out_dir is None:
        raise ValueError("grade: give the output folder (--out)")
    given, out_dir = plan.to_grade.path.resolve(), plan.outputs.out_dir.resolve()
    if out_dir == given or given in out_dir.parents:
        raise ValueError(f"{out_dir}: the output folder must not be inside the class folder {given}")
    check_out_dir(out_dir)
    formats = with_core(plan.outputs.formats)
    if plan.workers.scheduler:
        require_extra("distributed", "cluster", "--scheduler")
    # The YAML alone first: the workers start as soon as the class is counted and the reporters
    # have accepted their options, and their imports overlap the rest of this start (the bundle's checks).
    outline = read_outline(plan.assignment)
    needs = needs_of(formats)  # an unknown name is a usage error before anything runs
    # One run at a time: from the first read of the output folder (the marks, the earlier run) to its swap.
    with locked(out_dir, plan.outputs.wait, log), \
            intake(replace(plan.to_grade, path=given), outline.assignment.notebooks, log) as taken:
        roster = discover(taken.class_dir, outline.assignment.name, outline.assignment.notebooks)
        if (other := other_assignment(roster.students, outline.assignment)) is not None:
            raise ClassFolderError(f"{given}: {other}")
        for skipped in roster.skipped:
            log(f"skipped {skipped}")
        if roster.note:
            log(f"note: {roster.note}")
        marks = _marks(plan.outputs, out_dir, outline.assignment, {student_id(f) for f in roster.students})
        dropped = tuple(name for name in earlier_formats(out_dir) if name not in formats)
        with staged(out_dir, formats) as write_dir:

            def reopen() -> tuple[Reporter, ...]:
                return tuple(open_reporter(name, write_dir, **_options(name, plan.outputs.options, formats))
                             for name in formats)

            # Opened first: a reporter's own input (the Canvas gradebook) is told before the workers start.
            target = Target(out_dir, write_dir, read_previous(out_dir), reopen(), reopen, plan.outputs.stages, marks)
            asks = Asks((write_dir, out_dir, *plan.workers.hidden, *taken.hidden), needs.examples,
                        plan.workers.diagnose, needs.behaviour, needs.code)
            settled = _Settled(given, taken, roster, target, asks, dropped)
            with start_workers(outline, len(roster.students), jobs=plan.workers.jobs, scheduler=plan.workers.scheduler,
                               log=log) as workers:
                outcome = _grade_class(load_bundle(outline), workers, plan.workers.seed, settled, progress, log)
    return outcome if outcome.refused else replace(outcome, out_dir=out_dir)  # the staged folder is out_dir now


@dataclass(frozen=True)
class _Settled:
    """What ``run_plan`` has settled before the first student is graded."""

    given: Path  # as the instructor gave it: a class folder, or an LMS download (zip or folder)
    taken: Intake  # its class folder
    roster: Roster
    target: Target  # the staged folder and what writes into it
    asks: Asks
    dropped: tuple[str, ...]  # formats the earlier run in the output folder wrote, and this one does not


def _marks(outputs: Outputs, out_dir: Path, assignment: Assignment, students: set[str]) -> LiveMarks | None:
    """The marks to merge, read and checked before anything runs (and read again as the class
    is written, where the output folder's written.csv changed meanwhile)."""
    files = outputs.written
    if not assignment.written:
        if files:
            raise WrittenError(f"--written {files[0]}: the assignment {assignment.name} has no written answers")
        return None
    if outputs.held_marks is None:
        marks = LiveMarks(files, out_dir / "written.csv", assignment, students)
    else:
        marks = LiveMarks(files, None, assignment, students, *outputs.held_marks)
    marks.current()
    return marks


def _grade_class(bundle: Bundle, workers: Workers, seed: int | None, settled: _Settled,
                 progress: Callable[[int, int], None] | None, log: Callable[[str], None]) -> RunOutcome:
    """``run_plan`` once ``settled``, by ``workers``."""
    target = settled.target
    folders = slowest_first(settled.roster.students, target.previous)
    started = time.perf_counter()
    if progress is not None and workers.count > 1:
        # Before the workers' start-up, which takes seconds. One worker (one student) shows
        # its first result instead: the bar's machinery is no part of its start-up.
        progress(0, len(folders))
    with prepare_run(bundle, settled.taken.class_dir, len(folders), seed=seed, workers=workers, asks=settled.asks,
                     log=log) as run:
        lms = settled.taken.lms
        info = RunInfo(seed=run.job.seed, assignment=str(bundle.assignment.path), given=str(settled.given),
                       grader_version=__version__, jobs=workers.count, scheduler=workers.scheduler, rung=run.rung,
                       started=time.strftime("%Y-%m-%dT%H:%M:%S%z"), lms=lms)
        results = []
        for done, result in enumerate(grade(run, folders, log), start=1):
            results.append(result)
            if progress is not None:
                progress(done, len(folders))
    out = write_out(bundle, info, results, target)
    tally = Tally(bundle.assignment)
    for result in out.results:
        tally.add(result)
    notes = [*(lms.notes if lms else ()), *(out.marks.summary_lines() if out.marks else ()),
             *(line for output in out.outputs for line in output.summary_lines())]
    if out.comparison is not None and out.comparison.regrade is not None:
        notes += out.comparison.regrade.lines()
    if settled.dropped and not out.kept:
        notes.append(f"the earlier run in {target.out_dir} also wrote {', '.join(settled.dropped)}; this one does "
                     f"not (give --format {','.join(settled.dropped)} to write them again)")
    summary = replace(tally.summary(), skipped=settled.roster.skipped, notes=tuple(notes))
    return RunOutcome(run.job.seed, summary, out.kept or target.write_dir, time.perf_counter() - started, out.why)


def slowest_first(folders: Sequence[Path], previous: Previous | None) -> list[Path]:
    """The order students are dealt out in. On a regrade, those who took longest in the run
    it replaces come first (one new to the class counts as a typical one): a student whose
    item runs into its time limit no longer holds the end of the run while the other workers
    wait. A first run keeps the folders' order: nothing says who will loop."""
    if previous is None or not previous.seconds:
        return list(folders)
    typical = statistics.median(previous.seconds.values())
    return sorted(folders, key=lambda folder: -previous.seconds.get(student_id(folder), typical))


def _options(name: str, reporter_options: Mapping[str, Mapping[str, Any]],
             formats: Sequence[str]) -> dict[str, Any]:
    """A reporter's keyword options, and what it declared it needs of them (``Needs.formats``:
    the class report, which links to the other outputs, is told which formats the run writes)."""
    options = dict(reporter_options.get(name, {}))
    if reporter_class(name).needs.formats:
        options["formats"] = tuple(formats)
    return options
