"""A trusted grading worker: it holds the bundle (checks, reference) and one zygote of its
own from which every sandbox is forked, and grades one student's folder at a time.

Both schedulers of ``grader.pool`` call ``grade_folder`` in a worker process; its result
crosses back to the main process as JSON text, never pickled.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import signal
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .bundle import Bundle, load_bundle
from .inprocess import InProcessRunner
from .load import Cell, SourceFile, Submission, load_submission
from .run import grade_submission
from .sandbox.client import SandboxRunner, Zygote, default_hidden


@dataclass(frozen=True)
class Job:
    """What every worker needs to grade any folder of the run (sent once per worker)."""

    bundle_path: str
    seed: int
    class_dir: str
    outputs: tuple[str, ...]  # the run's output folders, hidden from the sandboxes like the class
    examples: bool = False  # run each item's public example too, for a reporter's pictures


@dataclass
class _WorkerState:
    job: Job
    bundle: Bundle
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
        bundle = load_bundle(job.bundle_path)
        hide = default_hidden(Path(job.class_dir), tuple(Path(p) for p in job.outputs), bundle.private_paths)
        zygote = Zygote(bundle.warm)
        _zygotes.add(zygote)
        state = _WorkerState(job, bundle, zygote, hide)
        _local.state = state
        _prime(bundle, job.seed, job.examples)
    return state


def _prime(bundle: Bundle, seed: int, examples: bool) -> None:
    """Grade the reference once, in this (trusted) process: every reference result of the
    run's seed is then memoised and torch's first-call costs are paid here, not by the
    first student of each worker. Only an optimisation: a failure is ignored."""
    try:
        files = tuple(SourceFile(nb, f"{nb}.py", (Cell(1, bundle.reference_source(nb)),))
                      for nb in bundle.assignment.notebooks)
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            grade_submission(Submission("reference", Path("."), files), bundle, seed, InProcessRunner.from_source,
                         examples=examples)
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


def grade_folder(folder: str, job: Job) -> str:
    """Grade one student's folder in this worker; the result as JSON text. Its ``seconds``
    cover reading the notebooks too: what the student cost this worker."""
    state = _state(job)
    bundle = state.bundle
    started = time.perf_counter()
    assignment = bundle.assignment
    submission = load_submission(Path(folder), assignment.name, assignment.notebooks)

    def open_runner(source: SourceFile) -> SandboxRunner:
        # The public examples have a time limit of their own: their CPU time is budgeted like an item's.
        items = len(assignment.items_of(source.notebook)) + (1 if job.examples else 0)
        return SandboxRunner(state.zygote, source, assignment.limits, state.hide, items)

    result = grade_submission(submission, bundle, job.seed, open_runner, examples=job.examples)
    result = replace(result, seconds=round(time.perf_counter() - started, 4))
    return json.dumps(result.to_json(), ensure_ascii=False)
