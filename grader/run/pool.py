"""Grade on a Dask cluster: each of its workers calls ``grader.worker.trusted.grade_folder``
and streams its results back (JSON text), a bounded number in flight, so the run's memory does
not grow with the class. The job crosses as plain data (``Job.to_json``), as to a local
worker. (The local pool is ``grader.run.local``.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any

from ..records.job import Job, Outcome, Pool
from ..worker.trusted import grade_folder, hello


class _Dask:
    def __init__(self, client: Any) -> None:
        self.client = client

    def hello(self, job: Job) -> str:
        return str(self.client.submit(_hello, job.to_json(), pure=False).result())

    def grade(self, folders: list[Path], job: Job) -> Iterator[Outcome]:
        window = 4 * max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))
        yield from _window(lambda f: self.client.submit(_grade, str(f), job.to_json(), pure=False), folders, window)


def _hello(job: dict[str, Any]) -> str:
    return hello(Job.from_json(job))


def _grade(folder: str, job: dict[str, Any]) -> str:
    return grade_folder(folder, Job.from_json(job))


@contextlib.contextmanager
def dask(address: str) -> Iterator[Pool]:
    """An existing ``dask.distributed`` cluster (paths must be visible to its workers)."""
    from distributed import Client

    with Client(address) as client:
        yield _Dask(client)


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
