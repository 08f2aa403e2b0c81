"""A trusted grading worker: it holds the bundle (checks, reference) and one zygote of its
own from which every sandbox is forked, and grades one student's folder at a time.

A local run's workers are forked by the run's warm image and ``serve`` its requests
(``grader.run.local``); a Dask worker calls ``grade_folder`` itself and starts a zygote of
its own (``grader.run.pool``). Either way a result crosses back to the main process as
JSON text, never pickled.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import select
import socket
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import frames
from ..assignment.bundle import Bundle, load_bundle
from ..diagnosis.diagnose import Diagnoser
from ..records.job import Job
from ..sandbox.client import Student
from ..sandbox.handles import ImageZygote, Zygote
from ..sandbox.ladder import secrets_readable
from ..sandbox.paths import default_hidden
from ..sandbox.spec import SandboxError
from ..submissions.load import load_submission
from ..submissions.recognise import notebook_marks
from ..threads import PINNED, pin_torch
from .score import grade_submission


@dataclass
class _WorkerState:
    job: Job
    bundle: Bundle
    zygote: Zygote
    hidden: list[Path]
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
    hidden = default_hidden(Path(job.class_dir), tuple(Path(p) for p in job.hidden), bundle.hidden)
    zygote.ready()
    refused = secrets_readable(zygote.rung, zygote.uid, [Path(job.class_dir), *(Path(p) for p in job.hidden),
                                                         *bundle.hidden])
    if refused is not None:
        raise SandboxError(refused)
    state = _WorkerState(job, bundle, zygote, hidden, Diagnoser(bundle) if job.diagnose else None)
    _local.state = state
    return state


def hello(job: Job) -> str:
    """This worker's zygote's ``Hello`` as JSON: the rung its sandboxes get, which the run
    reports. ``SandboxError`` where the zygote refuses (its one-line reason)."""
    return json.dumps(_state(job).zygote.hello.to_json())


def grade_folder(folder: str, job: Job) -> str:
    """Grade one student's folder in this worker; the result as JSON text. Its ``seconds``
    cover reading the notebooks too: what the student cost this worker."""
    state = _state(job)
    bundle = state.bundle
    started = time.perf_counter()
    assignment = bundle.assignment
    written = {nb: tuple(q.id for q in assignment.written_of(nb)) for nb in assignment.notebooks}
    items = tuple((nb, tuple(item.name for item in assignment.items_of(nb))) for nb in assignment.notebooks)
    submission = load_submission(Path(folder), assignment.name, assignment.notebooks, written,
                                 notebook_marks(bundle.root, items))

    # The public examples have a time limit of their own: their CPU time is budgeted like an item's.
    student = Student(state.zygote, assignment.limits, state.hidden,
                      {nb: len(assignment.items_of(nb)) + (1 if job.examples else 0) for nb in assignment.notebooks})
    try:
        result = grade_submission(submission, bundle, job.seed, student.open, examples=job.examples,
                                  diagnose=state.diagnoser.diagnose if state.diagnoser else None,
                                  behaviour=job.behaviour, code=job.code)
    finally:
        student.close()
    result = replace(result, seconds=round(time.perf_counter() - started, 4))
    return json.dumps(result.to_json(), ensure_ascii=False)


# ---- a local run's worker, forked by the run's warm image --------------------------------------

def serve(control: socket.socket, channel: socket.socket) -> int:
    """Answer the run's requests on ``channel`` until the run closes it; ``control``: the
    socket to this worker's zygote, which the image forks beside it (``grader.sandbox.image``).
    The image started with a filtered environment: the run's own comes first on the channel."""
    try:
        return _serve(control, channel)
    except (BrokenPipeError, ConnectionResetError):  # the run has gone: nothing is left to tell
        return 0


def _serve(control: socket.socket, channel: socket.socket) -> int:
    incoming = frames.Incoming()
    start = incoming.receive(channel)
    if start is None:
        return 0
    os.environ.clear()
    os.environ.update({**start["environment"], **PINNED})
    with contextlib.suppress(OSError):
        os.chdir(start["cwd"])
    zygote = ImageZygote(control)
    threading.Thread(target=_end_with, args=(channel,), daemon=True).start()
    while True:
        request = incoming.receive(channel)
        if request is None:
            zygote.close()
            return 0
        job = Job.from_json(request["job"])
        reply: dict[str, Any]
        try:
            if getattr(_local, "state", None) is None:
                open_state(job, load_bundle(job.bundle_path), zygote)
            reply = {"ok": hello(job) if request["op"] == "hello" else grade_folder(request["folder"], job)}
        except Exception as exc:
            reply = {"error": [type(exc).__name__, str(exc)]}
        channel.sendall(frames.pack(reply))


def _end_with(channel: socket.socket) -> None:
    """End this worker when its run has gone (closed the channel, or was killed) even while a
    student is graded: its exit closes its zygote's control socket, and the zygote then ends
    its sandboxes."""
    poller = select.poll()
    poller.register(channel, select.POLLRDHUP)
    poller.poll()
    os._exit(0)
