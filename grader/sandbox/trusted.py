"""A trusted worker forked by its zygote (``grader.grading.single``): one import of torch per
machine for a run of one worker.

The zygote is started fresh with a filtered environment and holds nothing a sandbox must
not see. It forks the worker once its imports are done: the worker gets that clean image
(numpy, torch) instead of importing it again, and then, over its own channel to the run,
which the zygote never reads and closes before any sandbox is forked, its environment and
its job; it loads the bundle itself. The zygote's memory stays what it was without a
worker, and every sandbox is forked from the zygote, never from the worker.
"""

from __future__ import annotations

import importlib
import os
import socket
import traceback
from collections.abc import Callable


def no_worker() -> None:
    return None


def worker_parent(channel_fd: int, entry: str) -> tuple[socket.socket, Callable[[], int | None]]:
    """The zygote's control socket, whose other end is the worker's, and the function that
    forks the worker (once: later calls return its pid). ``entry``: ``MODULE:FUNCTION``, what
    the worker runs, given the control socket and its channel (the sandbox knows no grading)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    started: list[int] = []

    def start() -> int | None:
        if started:
            return started[0]
        pid = os.fork()
        if pid == 0:  # the worker: it must never return into the zygote's loop
            code = 70
            try:
                ours.close()
                module, function = entry.split(":")
                serve = getattr(importlib.import_module(module), function)
                code = serve(theirs, socket.socket(fileno=channel_fd))
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        theirs.close()
        os.close(channel_fd)
        started.append(pid)
        return pid

    return ours, start


def wait_for(worker: int | None) -> None:
    """Reap the zygote's worker, which ends with its run: its CPU time counts to the zygote."""
    if worker is not None:
        try:
            os.waitpid(worker, 0)
        except ChildProcessError:  # reaped already, by a sweep
            pass
