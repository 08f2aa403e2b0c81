"""The local pool: ``jobs`` trusted workers on this machine, all forked from one warm image
(``grader.sandbox.image``), so torch's pages are in memory once however many workers grade.

The run's main process starts the image first, fresh and with a filtered environment, then
asks it for each worker over its control socket, handing it the worker's channel. The
worker gets its environment and its job from this process over that channel, which the
image never reads; it loads the bundle itself and grades with the same code as a Dask
worker (``grader.worker.trusted``); the results cross as JSON text. Each worker has at most
two folders in flight, so it never waits for this process between students, and it starts
on its first one as soon as its own zygote is ready: no worker waits for another.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import selectors
import signal
import socket
import subprocess
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import frames
from ..records.job import Job, Outcome, Pool, SubmissionFailed
from ..sandbox.handles import start_image
from ..sandbox.spec import SandboxError
from ..stop import INTERRUPTS

IN_FLIGHT = 2  # folders sent to a worker ahead of its replies
_HELLO = Path()  # stands in the queue for a hello's reply


def _failure(name: str, message: str) -> Exception:
    """The worker's exception, as it was raised there: its own type where this side knows it."""
    if name == SandboxError.__name__:
        return SandboxError(message)
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        with contextlib.suppress(Exception):
            return kind(message)
    return type(name, (RuntimeError,), {})(message)


@dataclass
class _Worker:
    channel: socket.socket
    incoming: frames.Incoming = field(default_factory=frames.Incoming)
    asked: deque[Path] = field(default_factory=deque)  # what it was asked, oldest first

    def send(self, request: dict[str, Any], job: Job, folder: Path) -> None:
        self.channel.sendall(frames.pack({**request, "job": job.to_json()}))
        self.asked.append(folder)

    def replies(self) -> Iterator[Any] | None:
        """The replies that have arrived in full (one ``recv``), a frame that could not be read
        as its ``WireError`` (``incoming.broken`` after one too long); None once the worker is gone."""
        try:
            chunk = self.channel.recv(1 << 20)
        except BlockingIOError:
            return iter(())
        except OSError:
            chunk = b""
        if not chunk:
            return None
        self.incoming.add(chunk)
        return iter(self.incoming.whole())


def _outcome(reply: Any) -> str | BaseException:
    """A worker's reply for a folder as its outcome. A reply that could not be read is that
    student's failure (what it holds comes from the student's files), never the run's."""
    if isinstance(reply, frames.WireError):
        return SubmissionFailed(f"the grader could not read this submission's result ({reply})")
    if type(reply) is dict and type(reply.get("ok")) is str:
        return str(reply["ok"])
    error = reply.get("error") if type(reply) is dict else None
    if type(error) is list and len(error) == 2 and all(type(e) is str for e in error):
        return _failure(*error)
    return SubmissionFailed("the grader could not read this submission's result (not a result)")


class _Local:
    def __init__(self, jobs: int, warm: tuple[str, ...], for_students: tuple[str, ...], collapse: bool) -> None:
        self.jobs = jobs
        self.job: Job | None = None
        self.replaced = 0
        self.working = False  # a worker has graded a folder: the grader itself works
        self.retried: set[Path] = set()  # folders graded again after their worker was lost
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # Ctrl-C at the terminal reaches the whole process group, and so may a scheduler's stop
        # (``grader.stop``): this process's to answer. The image starts with them blocked and
        # ignores them from its first line on; here one that came meanwhile is raised after.
        main = threading.current_thread() is threading.main_thread()
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS) if main else None
        try:
            self.process: subprocess.Popen[bytes] | None = start_image(
                theirs, "grader.worker.trusted:serve", collapse, warm, for_students)
        finally:
            if previous is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        theirs.close()
        self.control: socket.socket | None = ours
        self.workers: list[_Worker] = []
        for _ in range(jobs):
            worker = self._start_worker()
            if worker is not None:
                self.workers.append(worker)

    def _start_worker(self) -> _Worker | None:
        """A new worker, asked of the image now (its start overlaps the rest); None where the
        image is gone."""
        if self.control is None:
            return None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [b"worker"], [theirs.fileno()])
        except OSError:
            ours.close()
            return None
        finally:
            theirs.close()
        # Waits in the channel until the worker reads it: the image never does.
        with contextlib.suppress(OSError):
            ours.sendall(frames.pack({"environment": dict(os.environ), "cwd": os.getcwd()}))
        return _Worker(ours)

    def hello(self, job: Job) -> str:
        """Every worker is asked, so that all warm up at once; the first one's answer is the run's."""
        self.job = job
        if not self.workers:
            raise SandboxError("the grading workers did not start (see the stderr above)")
        for worker in self.workers:
            with contextlib.suppress(OSError):  # a worker gone: its reply says so
                worker.send({"op": "hello"}, job, _HELLO)
        first = self.workers[0]
        while True:
            replies = self._blocking_replies(first)
            if replies is None:
                raise SandboxError("the grading worker ended (see its stderr above)")
            for reply in replies:
                first.asked.popleft()
                outcome = _outcome(reply)
                if isinstance(outcome, BaseException):
                    raise outcome
                return outcome

    def _blocking_replies(self, worker: _Worker) -> Iterator[Any] | None:
        worker.channel.setblocking(True)
        try:
            return worker.replies()
        finally:
            worker.channel.setblocking(False)

    def grade(self, folders: list[Path], job: Job) -> Iterator[Outcome]:
        self.job = job
        queue = deque(folders)
        selector = selectors.DefaultSelector()
        try:
            for worker in list(self.workers):  # a worker found gone is replaced in the list meanwhile
                worker.channel.setblocking(False)
                selector.register(worker.channel, selectors.EVENT_READ, worker)
                yield from self._fill(worker, queue, job, selector)
            while selector.get_map():
                for key, _ in selector.select():
                    worker = key.data
                    replies = worker.replies()
                    if replies is None:
                        yield from self._lost(worker, queue, job, selector)
                        continue
                    for reply in replies:
                        folder = worker.asked.popleft()
                        if folder is _HELLO:
                            continue  # its hello, asked with the others': an error shows on the folders
                        outcome = _outcome(reply)
                        self.working = self.working or isinstance(outcome, str)
                        yield folder, outcome
                    if worker.incoming.broken:  # its next frames cannot be found: the rest is graded again
                        yield from self._lost(worker, queue, job, selector, to_blame=False)
                        continue
                    yield from self._fill(worker, queue, job, selector)
        finally:
            selector.close()

    def _fill(self, worker: _Worker, queue: deque[Path], job: Job,
              selector: selectors.BaseSelector) -> Iterator[Outcome]:
        """Keep ``worker`` ``IN_FLIGHT`` folders ahead; a worker with nothing left to grade
        ends now (its zygote with it) while the others finish."""
        while queue and sum(f is not _HELLO for f in worker.asked) < IN_FLIGHT:
            folder = queue.popleft()
            try:
                worker.channel.setblocking(True)
                worker.send({"op": "grade", "folder": str(folder)}, job, folder)
                worker.channel.setblocking(False)
            except OSError:  # the worker is gone: its channel is closed in ``_lost``
                queue.appendleft(folder)
                yield from self._lost(worker, queue, job, selector)
                return
        if not worker.asked:
            selector.unregister(worker.channel)
            self._end(worker)

    def _lost(self, worker: _Worker, queue: deque[Path], job: Job,
              selector: selectors.BaseSelector, to_blame: bool = True) -> Iterator[Outcome]:
        """A worker that ended while it held folders: a new worker takes its place and grades
        them again. The one it was grading (``to_blame``: the first) may be what ended it, the
        worker's memory running out: it is graded once more at most, then its row says so; the
        others cost nothing. Until a worker has graded a folder, at most as many replacements
        start as there are workers: one that keeps ending then is the grader's fault, and the
        rest of the class is told so. After, each folder ends at most two workers."""
        selector.unregister(worker.channel)
        self._end(worker)
        held = [folder for folder in worker.asked if folder is not _HELLO]
        worker.asked.clear()
        if held and to_blame:
            if held[0] in self.retried:
                yield held.pop(0), SubmissionFailed("the grading process was lost twice while grading "
                                                    "this submission (its memory, or a crash)")
            else:
                self.retried.add(held[0])
        queue.extendleft(reversed(held))
        replacement = self._start_worker() if (self.working or self.replaced < self.jobs) and queue else None
        if replacement is None:
            if not selector.get_map():
                while queue:
                    yield queue.popleft(), SandboxError("no grading worker is left (see the stderr above)")
            return
        self.replaced += 1
        self.workers.append(replacement)
        replacement.channel.setblocking(False)
        selector.register(replacement.channel, selectors.EVENT_READ, replacement)
        yield from self._fill(replacement, queue, job, selector)

    def _end(self, worker: _Worker) -> None:
        with contextlib.suppress(ValueError):
            self.workers.remove(worker)
        worker.channel.close()

    def close(self, finished: bool) -> None:
        """The workers end at the end of their channels (each ending its zygote, which ends its
        sandboxes), interrupted or not; the image then reaps them and exits. An image asked
        nothing yet (the run failed before its hello: a bundle's checks that do not import)
        holds no sandbox, and is not waited for: it may be seconds into its imports."""
        for worker in list(self.workers):
            self._end(worker)
        if self.control is not None:
            self.control.close()
            self.control = None
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
def local(jobs: int, warm: tuple[str, ...], for_students: tuple[str, ...] = (), *,
          collapse: bool = True) -> Iterator[Pool]:
    """``jobs`` workers forked from one warm image that imports the bundle's ``warm`` modules
    (and its ``for_students``, which only the zygotes need), for the length of the ``with``.
    ``collapse``: the image backs its heap with huge pages (see ``grader.sandbox.image``)."""
    pool = _Local(jobs, warm, for_students, collapse)
    finished = False
    try:
        yield pool
        finished = True
    finally:
        pool.close(finished)
