"""Grade many submissions at once: warm worker processes (local) or a Dask cluster.

Both schedulers call the same ``grader.grading.worker.grade_folder`` and stream its results back
(JSON text), a bounded number in flight, so the run's memory does not grow with the class.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import os
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from .job import Job, Outcome, Pool
from .worker import grade_folder, hello, start_local_worker


class _Local:
    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.executor: ProcessPoolExecutor | None = None

    def _started(self, job: Job) -> ProcessPoolExecutor:
        if self.executor is None:
            start_local()
            self.executor = ProcessPoolExecutor(max_workers=self.jobs, mp_context=_context(),
                                                initializer=start_local_worker, initargs=(job, dict(os.environ)))
        return self.executor

    def hello(self, job: Job) -> str:
        return self._started(job).submit(hello, job).result()

    def grade(self, folders: list[Path], job: Job) -> Iterator[Outcome]:
        executor = self._started(job)
        yield from _window(lambda f: executor.submit(grade_folder, str(f), job), folders, 4 * self.jobs)

    def close(self, finished: bool) -> None:
        if self.executor is None:
            return
        if not finished:
            # Interrupted (Ctrl-C, a refusal, or the caller stopped reading): no waiting for the
            # students in progress. A worker ends its zygotes before it exits (grader.grading.worker),
            # and a zygote's end takes its sandboxes with it.
            for process in list(getattr(self.executor, "_processes", {}).values()):
                process.terminate()
        self.executor.shutdown(wait=True, cancel_futures=not finished)


@contextlib.contextmanager
def local(jobs: int) -> Iterator[Pool]:
    """``jobs`` warm worker processes on this machine, for the length of the ``with``."""
    pool = _Local(jobs)
    finished = False
    try:
        yield pool
        finished = True
    finally:
        pool.close(finished)


class _Dask:
    def __init__(self, client: Any) -> None:
        self.client = client

    def hello(self, job: Job) -> str:
        return str(self.client.submit(hello, job, pure=False).result())

    def grade(self, folders: list[Path], job: Job) -> Iterator[Outcome]:
        window = 4 * max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))
        yield from _window(lambda f: self.client.submit(grade_folder, str(f), job, pure=False), folders, window)


@contextlib.contextmanager
def dask(address: str) -> Iterator[Pool]:
    """An existing ``dask.distributed`` cluster (paths must be visible to its workers)."""
    from distributed import Client

    with Client(address) as client:
        yield _Dask(client)


def start_local() -> None:
    """Start the fork server now, in the background: its imports (about 0.3 s) then overlap
    the caller's own start (the bundle, the class folder) instead of following it.

    A Ctrl-C at the terminal reaches the whole process group. The server is started with it
    blocked (a signal mask survives exec), and ignores it from its first import on
    (``grader.grading.pin_threads``), so its imports end in no traceback; here a Ctrl-C that came
    meanwhile is delivered once the mask is back: the main process alone answers it."""
    _context()
    # First, on its own: starting it unblocks Ctrl-C (it blocks and unblocks it around its own
    # start), which inside the block below would let the server start without it.
    multiprocessing.resource_tracker.ensure_running()
    main = threading.current_thread() is threading.main_thread()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if main else None
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        if previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _context() -> multiprocessing.context.BaseContext:
    """Workers forked from one fork server that imported the worker's code and numpy, with
    one thread each, and ran nothing: a worker starts in milliseconds, and nothing of the
    caller's (its torch state above all) reaches it. The server lives as long as this
    process, so a second run starts at once.

    torch is not preloaded: a worker first starts its zygote, which imports it, and imports
    it meanwhile, in parallel (measured here: one student graded in about 4 s, against about
    6 s when the server imported torch first and the zygote after)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["grader.grading.pin_threads", "grader.grading.worker"])
    return context


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
                result: str | BaseException = future.result()
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
