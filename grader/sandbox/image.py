"""The run's warm image: one process that imports the bundle's warm modules once and forks
every trusted worker and every zygote of a local run from that one image, so that the
machine holds one copy of torch's pages however many workers grade.

It is started fresh (``python -m grader.sandbox.image``) with a filtered environment, and
holds nothing a sandbox must not see: it imports the warm modules and runs nothing (no torch
operation, no thread pool), never reads a worker's channel, and loads no bundle. Nor does it
import the grader's worker code: every zygote, and so every sandbox, would hold it (a
sandbox's `import grader...` must find nothing there), so each worker imports it itself. On each
request of the run's main process (a ``worker`` message carrying the worker's channel) it:

1. forks the **worker** once ``warm`` is imported (the worker needs no more), handing it the
   channel and one end of a new control socket; the worker reads its environment and job
   from the run over the channel and loads the bundle itself, in its own memory;
2. forks the worker's **zygote** once ``for_students`` is imported too, with the other end:
   the zygote says hello to its worker over it and forks that worker's sandboxes, so a
   sandbox is forked from the clean image, never from a worker.

Each child closes every descriptor of the image but its own, so no zygote (and no sandbox)
holds another worker's channel or the image's control socket. The image ends when the run
closes its control socket, once its children have ended.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import select
import socket
import sys
import traceback
from collections.abc import Callable

from ..records.rung import Rung
from .spec import FOR_STUDENTS, Hello
from .zygote import (
    CHILD,
    _collapse_into_huge_pages,
    _reply,
    ignore_interrupts,
    refusal,
    serve,
    uid_block,
    warm_up,
)

# Under memory pressure the kernel's OOM killer ends the process of highest score (its memory
# plus this adjustment), so the order is what each loss costs: a sandbox (1000, set by itself)
# costs one item; a worker or a zygote (this) the folders its worker held, which a replacement
# grades again; the image and the run's main process (0, the caller's) the whole run. Raising
# a score needs no privilege.
TRUSTED_OOM_SCORE_ADJ = 500


def _oom_score_adj(value: int) -> None:
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as handle:
        handle.write(str(value))


class _Image:
    def __init__(self, control: socket.socket, entry: str) -> None:
        self.control = control
        self.entry = entry  # MODULE:FUNCTION, what a worker runs: the sandbox knows no grading
        # Every descriptor a child must not keep, with its socket where one wraps it (closed
        # through the socket, whose own later close could hit a reused number otherwise).
        self.held: dict[int, socket.socket | None] = {control.fileno(): control}
        self.waiting: list[socket.socket] = []  # control ends of the zygotes still to fork
        self.children: set[int] = set()

    def take(self, block: bool) -> bool:
        """Fork a worker for each request that has arrived (waiting for one if ``block``);
        False once the run has closed the control socket."""
        while True:
            if not block and not select.select([self.control], [], [], 0)[0]:
                return True
            try:
                data, fds, _, _ = socket.recv_fds(self.control, 64, 1)
            except OSError:
                data, fds = b"", []
            if not data:
                return False
            if data == b"worker" and len(fds) == 1:
                self._fork_worker(fds[0])
            else:
                for fd in fds:
                    os.close(fd)
            block = False

    def _fork_worker(self, channel: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.held.update({channel: None, ours.fileno(): ours, theirs.fileno(): theirs})
        pid = self._fork(keep={channel, theirs.fileno()}, run=lambda: self._serve_worker(theirs, channel))
        for fd in (channel, theirs.fileno()):
            del self.held[fd]
        os.close(channel)
        theirs.close()
        if pid is None:
            del self.held[ours.fileno()]
            ours.close()
        else:
            self.waiting.append(ours)

    def _serve_worker(self, control: socket.socket, channel: int) -> int:
        module, function = self.entry.split(":")
        serve_worker = getattr(importlib.import_module(module), function)
        return int(serve_worker(control, socket.socket(fileno=channel)))

    def fork_zygotes(self, rung: Rung | None, refused: str | None) -> None:
        """A zygote for each worker forked so far; where this host refuses sandboxes, the
        refusal is said to each worker instead."""
        while self.waiting:
            control = self.waiting.pop(0)
            if refused is not None or rung is None:
                _reply(control, Hello(rung, uid_block(os.getpid())[0], refused).to_json())
            else:
                self._fork(keep={control.fileno()}, run=functools.partial(_serve_zygote, control, rung))
            del self.held[control.fileno()]
            control.close()

    def _fork(self, keep: set[int], run: Callable[[], int]) -> int | None:
        try:
            pid = os.fork()
        except OSError:
            traceback.print_exc()
            return None
        if pid == 0:  # the child must never return into the image's loop
            code = 70
            try:
                _oom_score_adj(TRUSTED_OOM_SCORE_ADJ)
                for fd, wrapper in self.held.items():
                    if fd not in keep:
                        with contextlib.suppress(OSError):
                            wrapper.close() if wrapper is not None else os.close(fd)
                code = run()
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stderr.flush()
                os._exit(code)
        self.children.add(pid)
        self.reap(block=False)
        return pid

    def reap(self, block: bool) -> None:
        """Reap the children that have ended (all of them, waiting, if ``block``): their CPU
        time then counts to the image, and so to the run."""
        for pid in list(self.children):
            try:
                done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.children.discard(pid)


def _serve_zygote(control: socket.socket, rung: Rung) -> int:
    serve(control, rung, collapse=False)
    return 0


def main(control_fd: int, entry: str, collapse: bool, warm: list[str], for_students: list[str]) -> None:
    """Serve the run's requests on ``control_fd`` (see the module's docstring). ``collapse``:
    back the warm heap with huge pages before anything is forked (a run of more than one
    student: forking and ending each sandbox is then about three times cheaper; for one
    student the collapse costs more than it saves)."""
    ignore_interrupts()
    image = _Image(socket.socket(fileno=control_fd), entry)
    rung, refused = refusal(uid_block(os.getpid())[0])
    usable = rung is not None and refused is None
    if usable:
        warm_up(warm)
        if collapse:
            # Before the first fork: pages shared with a child already forked cannot be collapsed.
            _collapse_into_huge_pages()
    open_ = image.take(block=False)  # the workers start now: their own start overlaps the rest
    if usable:
        warm_up([*for_students, CHILD])
        if collapse:  # what those imports added, which no worker shares
            _collapse_into_huge_pages()
    image.fork_zygotes(rung, refused)
    while open_:
        open_ = image.take(block=True)
        image.fork_zygotes(rung, refused)
    image.reap(block=True)


if __name__ == "__main__":
    # FD MODULE:FUNCTION COLLAPSE WARM... [--for-students MODULE...]
    fd, worker_entry, collapse_flag, *modules = sys.argv[1:]
    cut = modules.index(FOR_STUDENTS) if FOR_STUDENTS in modules else len(modules)
    main(int(fd), worker_entry, collapse_flag == "1", modules[:cut], modules[cut + 1:])
    # Its children have ended: skip the interpreter's teardown of torch (about a second here).
    sys.stderr.flush()
    os._exit(0)
