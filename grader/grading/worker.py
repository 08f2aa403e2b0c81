"""A trusted grading worker: it holds the bundle (checks, reference) and one zygote of its
own from which every sandbox is forked, and grades one student's folder at a time.

Both schedulers of ``grader.grading.pool`` call ``grade_folder`` in a worker process; its result
crosses back to the main process as JSON text, never pickled.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import multiprocessing.connection
import multiprocessing.util
import os
import signal
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..assignment.bundle import Bundle, load_bundle
from ..diagnosis.diagnose import Diagnoser
from ..sandbox.client import SandboxRunner, default_hidden
from ..sandbox.policy import secrets_readable
from ..sandbox.spec import SandboxError
from ..sandbox.zygotes import Zygote
from ..submissions.load import SourceFile, load_submission
from ..threads import PINNED, pin_torch
from .job import Job
from .submission import grade_submission


@dataclass
class _WorkerState:
    job: Job
    bundle: Bundle
    zygote: Zygote
    hide: list[Path]
    diagnoser: Diagnoser | None


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
    if state is None or state.job != job or not state.zygote.alive():
        if state is not None:
            _zygotes.discard(state.zygote)
            state.zygote.close()
        # The zygote's imports (seconds of torch) overlap this worker's own: the packages of
        # the warm modules, which its checks use (not the bundle's ``warm_for_students``, which
        # only students' code does). The reference's results are computed when a check first
        # asks, and memoised for the run.
        bundle = load_bundle(job.bundle_path)
        zygote = Zygote(bundle.warm, bundle.warm_for_students, wait=False)
        _zygotes.add(zygote)
        state = open_state(job, bundle, zygote)
    return state


def open_state(job: Job, bundle: Bundle, zygote: Zygote) -> _WorkerState:
    """This thread's worker for ``job``, with ``zygote`` (started, maybe not ready yet)."""
    for name in dict.fromkeys(module.split(".")[0] for module in bundle.warm):
        with contextlib.suppress(ImportError):  # the items that need it will say so
            importlib.import_module(name)
    pin_torch()
    hide = default_hidden(Path(job.class_dir), tuple(Path(p) for p in job.hidden), bundle.private_paths)
    zygote.ready()
    secrets = [Path(job.class_dir), *(Path(p) for p in job.hidden), *bundle.private_paths]
    refused = secrets_readable(zygote.isolation, zygote.uid, secrets)
    if refused is not None:
        raise SandboxError(refused)
    state = _WorkerState(job, bundle, zygote, hide, Diagnoser(bundle) if job.diagnose else None)
    _local.state = state
    return state


def start_local_worker(job: Job, environment: dict[str, str]) -> None:
    """The local pool's initializer: the caller's environment as it is now (the fork server
    kept the one of its own start), and a warm worker."""
    os.environ.clear()
    os.environ.update({**environment, **PINNED})
    # A worker forked by the fork server ends with os._exit, which runs no atexit handler.
    multiprocessing.util.Finalize(None, _close_zygotes, exitpriority=10)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()
    warm_up(job)


def _end_with(sentinel: int) -> None:
    """End this worker, and its zygotes first, when the run's main process is gone (killed,
    say): nothing else would tell it, since it holds both ends of the pipe it reads its
    work from, and the fork server lives as long as any worker does."""
    multiprocessing.connection.wait([sentinel])
    _close_zygotes()
    os._exit(1)


def warm_up(job: Job) -> None:
    # Ctrl-C at the terminal reaches the whole process group: the main process alone answers
    # it (it ends the workers), so a worker prints no traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Ended by an interrupted run: its zygotes (and their sandboxes) end first, so that nothing
    # of the run outlives its main process.
    signal.signal(signal.SIGTERM, _end_now)
    # A zygote that refuses is said by ``hello``, not here: an initializer's exception would
    # break the pool without its reason.
    with contextlib.suppress(SandboxError):
        _state(job)


def hello(job: Job) -> str:
    """This worker's zygote's ``Hello`` as JSON: the rung its sandboxes get, which the run
    reports. ``SandboxError`` where the zygote refuses (its one-line reason)."""
    return json.dumps(_state(job).zygote.hello.to_json())


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

    result = grade_submission(submission, bundle, job.seed, open_runner, examples=job.examples,
                              diagnose=state.diagnoser.diagnose if state.diagnoser else None,
                              behaviour=job.behaviour)
    result = replace(result, seconds=round(time.perf_counter() - started, 4))
    return json.dumps(result.to_json(), ensure_ascii=False)
