"""A run of one worker (one submission: Gradescope, a re-grade; or ``--jobs 1``): the worker
is forked by its own zygote from the zygote's image, so the machine imports torch once.

The local pool (``grader.grading.pool``) starts a fork server, then a worker that imports torch for
the reference, whose zygote imports it again: on one core the two imports follow each
other. Here the zygote is started first, fresh and with a filtered environment as always,
and forks the worker once its imports are done (``grader.sandbox.trusted``); the worker
then gets its environment and its job from this process over a channel of its own, which
the zygote never reads. It grades with the same code as a pool's worker
(``grader.grading.worker.grade_folder``); the results cross as JSON text.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import select
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .. import frames
from ..sandbox.spec import SandboxError
from ..sandbox.zygotes import start_zygote
from ..threads import PINNED
from .job import Job, Outcome, Pool


def _failure(name: str, message: str) -> Exception:
    """The worker's exception, as the pool's would arrive: its own type where this side knows it."""
    if name == SandboxError.__name__:
        return SandboxError(message)
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        with contextlib.suppress(Exception):
            return kind(message)
    return type(name, (RuntimeError,), {})(message)


class _Single:
    def __init__(self, warm: tuple[str, ...], for_students: tuple[str, ...]) -> None:
        self.warm = warm
        self.for_students = for_students
        self.job: Job | None = None
        self.channel: socket.socket | None = None
        self.incoming = frames.Incoming()  # what the worker sent and was not read yet
        self.process: subprocess.Popen[bytes] | None = None
        self._start()  # now: its imports overlap the rest of the run's start

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # Ctrl-C at the terminal reaches the whole process group, and is this process's to
        # answer: the zygote starts with it blocked and ignores it from its first line on
        # (as the pool's fork server does); here one that came meanwhile is raised after.
        main = threading.current_thread() is threading.main_thread()
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if main else None
        try:
            self.process = start_zygote(theirs, self.warm, self.for_students, worker=f"{__name__}:serve_worker")
        finally:
            if previous is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        theirs.close()
        self.channel = ours
        # Waits in the channel until the worker is forked: the zygote never reads it. (A zygote
        # gone already: the first request says so.)
        with contextlib.suppress(OSError):
            ours.sendall(frames.pack({"environment": dict(os.environ), "cwd": os.getcwd()}))
        self.incoming = frames.Incoming()

    def _started(self, job: Job) -> socket.socket:
        """The channel to a worker for ``job`` (a new worker for another job)."""
        if self.channel is None or self.job not in (None, job):
            self.close(finished=True)
            self._start()
        self.job = job
        assert self.channel is not None
        return self.channel

    def _ask(self, request: dict[str, Any], job: Job) -> str:
        channel = self._started(job)
        try:
            channel.sendall(frames.pack({**request, "job": asdict(job)}))
            reply = self.incoming.receive(channel)
        except OSError:
            reply = None
        if reply is None:
            raise SandboxError("the grading worker ended (see its stderr above)")
        if "error" in reply:
            raise _failure(*reply["error"])
        return str(reply["ok"])

    def hello(self, job: Job) -> str:
        return self._ask({"op": "hello"}, job)

    def grade(self, folders: list[Path], job: Job) -> Iterator[Outcome]:
        for number, folder in enumerate(folders, start=1):
            try:
                outcome: str | BaseException = self._ask({"op": "grade", "folder": str(folder)}, job)
            except Exception as exc:  # the grader's own failure: the student still gets a row
                outcome = exc
            if number == len(folders):
                # The last one is graded: the worker and its zygote end (about 30 ms) while the
                # caller writes the outputs. (Another call would start a new worker.)
                self._end_channel()
            yield folder, outcome

    def _end_channel(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None

    def close(self, finished: bool) -> None:
        """The worker ends at the end of its channel (ending its zygote, which ends its
        sandboxes), interrupted or not; the zygote reaps it and exits. A zygote asked nothing
        yet (the run failed before its hello: a bundle's checks that do not import) has no
        sandbox, and is not waited for: it may be seconds into its imports."""
        self._end_channel()
        if self.process is not None:
            if self.job is None:
                self.process.kill()
            try:
                self.process.wait(timeout=15 if finished else 5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


@contextlib.contextmanager
def single(warm: tuple[str, ...], for_students: tuple[str, ...] = ()) -> Iterator[Pool]:
    """One worker, forked by its zygote once the zygote has imported the bundle's ``warm``
    modules, and while it imports its ``warm_for_students``."""
    pool = _Single(warm, for_students)
    finished = False
    try:
        yield pool
        finished = True
    finally:
        pool.close(finished)


# ---- the worker's side, in the process the zygote forked -------------------------------------

def serve_worker(control: socket.socket, channel: socket.socket) -> int:
    """Answer the run's requests until it closes the channel; ``control``: the zygote's."""
    from ..assignment.bundle import load_bundle
    from ..sandbox.zygotes import ParentZygote
    from .worker import _local, grade_folder, hello, open_state

    incoming = frames.Incoming()
    start = incoming.receive(channel)
    if start is None:
        return 0
    os.environ.clear()
    os.environ.update({**start["environment"], **PINNED})
    with contextlib.suppress(OSError):
        os.chdir(start["cwd"])
    zygote = ParentZygote(control)
    threading.Thread(target=_end_with, args=(channel,), daemon=True).start()
    while True:
        request = incoming.receive(channel)
        if request is None:
            zygote.close()
            return 0
        job = Job(**{**request["job"], "hidden": tuple(request["job"]["hidden"])})
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
    student is graded: its exit closes the zygote's control socket, and the zygote then ends
    its sandboxes."""
    poller = select.poll()
    poller.register(channel, select.POLLRDHUP)
    poller.poll()
    os._exit(0)
