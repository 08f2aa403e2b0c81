"""Grade many submissions at once: warm worker processes (local) or a Dask cluster.

A worker is trusted: it holds the reference and the checks, and starts one zygote of
its own from which every sandbox is forked. Both schedulers call the same
``grade_folder`` and stream results back as JSON, a bounded number in flight, so the
run's memory does not grow with the class.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .checks import known_checks
from .config import Assignment, load_assignment
from .load import load_submission
from .run import grade_submission
from .sandbox.client import SandboxRunner, Zygote, default_hidden


@dataclass(frozen=True)
class Job:
    """What every worker needs to grade any folder of the run (sent once per worker)."""

    assignment_path: str
    seed: int
    class_dir: str
    out_dir: str
    write_dir: str  # where this run's output is written before it replaces out_dir


@dataclass
class _WorkerState:
    job: Job
    assignment: Assignment
    zygote: Zygote
    hide: list[Path]


_local = threading.local()
_zygotes: set[Zygote] = set()  # every live zygote of this process, whichever thread owns it


@atexit.register
def _close_zygotes() -> None:
    """A worker that exits ends its zygotes and waits for them: nothing is left behind, and
    their CPU time (their sandboxes' included) is accounted to the worker."""
    for zygote in list(_zygotes):
        _zygotes.discard(zygote)
        try:
            zygote.close()
        except Exception:
            pass


def _state(job: Job) -> _WorkerState:
    state: _WorkerState | None = getattr(_local, "state", None)
    if state is None or state.job != job or state.zygote.process.poll() is not None:
        if state is not None:
            _zygotes.discard(state.zygote)
            state.zygote.close()
        assignment = load_assignment(job.assignment_path, known_checks())
        hide = default_hidden(Path(job.class_dir), Path(job.out_dir), Path(job.write_dir))
        zygote = Zygote()
        _zygotes.add(zygote)
        state = _WorkerState(job, assignment, zygote, hide)
        _local.state = state
        _prime(assignment, job.seed)
    return state


def _prime(assignment: Assignment, seed: int) -> None:
    """Grade the reference once, in this (trusted) process: every reference result of the
    run's seed is then memoised and torch's first-call costs are paid here, not by the
    first student of each worker. Only an optimisation: a failure is ignored."""
    import contextlib
    import io

    from .catalogue import reference_source
    from .inprocess import InProcessRunner
    from .load import Cell, SourceFile, Submission

    try:
        files = tuple(SourceFile(nb, f"{nb}.py", (Cell(1, reference_source(nb)),)) for nb in assignment.notebooks)
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            grade_submission(Submission("reference", Path("."), files), assignment, seed, InProcessRunner.from_source)
    except Exception:
        pass


def warm_up(job: Job) -> None:
    # Ctrl-C at the terminal reaches the whole process group: the main process alone answers
    # it (it ends the workers), so a worker prints no traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Ended by an interrupted run: its zygotes (and their sandboxes) end first, so that nothing
    # of the run outlives its main process.
    signal.signal(signal.SIGTERM, _end_now)
    _state(job)


def _end_now(signum: int, frame: Any) -> None:
    signal.signal(signum, signal.SIG_IGN)  # the pool may ask again: finish ending the zygotes
    _close_zygotes()
    os._exit(128 + signum)


def grade_folder(folder: str, job: Job) -> dict[str, Any]:
    """Grade one student's folder in this worker; the result as JSON-ready data. Its
    ``seconds`` cover reading the notebooks too: what the student cost this worker."""
    state = _state(job)
    assignment = state.assignment
    started = time.perf_counter()
    submission = load_submission(Path(folder), assignment.name, assignment.notebooks)

    def open_runner(source: Any) -> SandboxRunner:
        return SandboxRunner(state.zygote, source, assignment.limits, state.hide)

    result = grade_submission(submission, assignment, job.seed, open_runner)
    return replace(result, seconds=round(time.perf_counter() - started, 4)).to_json()


Outcome = tuple[Path, "dict[str, Any] | BaseException"]


def run_local(folders: list[Path], job: Job, jobs: int) -> Iterator[Outcome]:
    """(folder, result or the grader's own exception) in completion order from ``jobs``
    warm worker processes."""
    # spawn: a worker must not inherit anything (torch state above all) from the caller.
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=warm_up, initargs=(job,))
    finished = False
    try:
        yield from _window(lambda f: pool.submit(grade_folder, str(f), job), folders, 4 * jobs)
        finished = True
    finally:
        if not finished:
            # Interrupted (Ctrl-C, or the caller stopped reading): no waiting for the students
            # in progress. A worker's end closes its zygote's control socket, and the zygote
            # then ends every sandbox.
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=not finished)


def run_dask(folders: list[Path], job: Job, address: str) -> Iterator[Outcome]:
    """The same work on an existing ``dask.distributed`` cluster (paths must be visible to its workers)."""
    from distributed import Client

    with Client(address) as client:
        window = 4 * max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
        yield from _window(lambda f: client.submit(grade_folder, str(f), job, pure=False), folders, window)


def _window(submit: Any, folders: list[Path], size: int) -> Iterator[Outcome]:
    """Outcomes in completion order with at most ``size`` futures in flight, so neither the
    scheduler nor this process ever holds more than a window of the class."""
    pending: dict[Any, Path] = {}
    queue = iter(folders)
    while True:
        while len(pending) < size:
            folder = next(queue, None)
            if folder is None:
                break
            try:
                future = submit(folder)
            except Exception as exc:  # a broken pool, a lost scheduler: the student still gets a row
                yield folder, exc
                continue
            pending[future] = folder
        if not pending:
            return
        done, _ = _wait_any(set(pending))
        for future in done:
            folder = pending.pop(future)
            try:
                result: dict[str, Any] | BaseException = future.result()
            except (KeyboardInterrupt, SystemExit, GeneratorExit):
                raise
            except BaseException as exc:  # the grader's own failure (a cancelled Dask future too)
                result = exc
            yield folder, result


def _wait_any(pending: set[Any]) -> tuple[set[Any], set[Any]]:
    first = next(iter(pending))
    if isinstance(first, Future):
        done, rest = wait(pending, return_when=FIRST_COMPLETED)
        return set(done), set(rest)
    from distributed import wait as dask_wait

    done, rest = dask_wait(list(pending), return_when="FIRST_COMPLETED")
    return set(done), set(rest)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
