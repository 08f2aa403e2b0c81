"""The warm zygote: imports what the assignment bundle lists (numpy, torch, ...) once, then
forks a sandboxed child per student on request (and again after a crash or a hang).

It is forked from the run's warm image (``grader.sandbox.image``), or started fresh on its own
(``python -m grader.sandbox.zygote``: a Dask worker's), so its memory holds nothing a child
must not see: no reference, no checks, no answers. It
never runs a torch operation itself, and pins torch to one thread, because forking a
process whose torch thread pool is running can hang the child.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
import traceback
from typing import Any

from .. import linux
from ..linux import CLONE_NEWUSER, PR_SET_CHILD_SUBREAPER
from ..records.rung import Rung
from . import cpushare, guard
from .ladder import NAMESPACES, imports_refused, keep_from_same_uid, probe
from .spec import FOR_STUDENTS, ChildSpec, Hello, SandboxRequest
from .sweep import Sweeper, kill_sandbox, tasks_of_uid
from .warm import CHILD, collapse_into_huge_pages, ignore_interrupts, import_path, restore_interrupts, warm_up

# Under root, each sandbox runs as a uid of its own, from its zygote's block of UIDS_PER_ZYGOTE
# starting at SANDBOX_UID_BASE + UIDS_PER_ZYGOTE × the zygote's pid: above every uid that
# tests/unprivileged.py or a distribution hands out, so a process of such a uid is a sandbox's.
# Live zygotes have distinct pids, so their blocks never overlap (the largest pid, 2^22, still
# gives a valid uid). The block's first uid is the zygote's own name for it (its hello's).
SANDBOX_UID_BASE = 200000
UIDS_PER_ZYGOTE = 1000


def uid_block(zygote_pid: int) -> range:
    """The uids of the sandboxes of the zygote ``zygote_pid`` (its first is the block's name)."""
    first = SANDBOX_UID_BASE + UIDS_PER_ZYGOTE * zygote_pid
    return range(first, first + UIDS_PER_ZYGOTE)


def refusal(uid: int) -> tuple[Rung | None, str | None]:
    """The rung this host gives, and why sandboxes cannot be forked here (None where they
    can): a forced rung the host lacks, or an import path ``uid`` could not read. Checked
    before the imports: a throwaway fork is cheap, and a refusal quick."""
    try:
        rung = probe()
    except ValueError as exc:  # a forced rung this host cannot give
        return None, str(exc)
    if rung.without_namespaces:
        keep_from_same_uid()  # and the sandboxes forked from here: from each other
    return rung, imports_refused(rung, uid, import_path())


def main(control_fd: int, warm: list[str], for_students: list[str]) -> None:
    """Fork sandboxes on the requests of the control socket ``control_fd``, once ``warm`` and
    ``for_students`` are imported: a zygote started on its own (a Dask worker's, a test's).
    A local run's zygotes are forked from its warm image instead (``grader.sandbox.image``)."""
    control = socket.socket(fileno=control_fd)
    ignore_interrupts()
    rung, refused = refusal(uid_block(os.getpid())[0])
    if rung is not None and refused is None:
        warm_up([*warm, *for_students, CHILD])
    start(control, rung, refused, collapse=True)


def start(control: socket.socket, rung: Rung | None, refused: str | None, *, collapse: bool) -> int:
    """A zygote's life on ``control``, however it was started (by ``main``, or forked from the
    run's warm image, which says a refusal itself, forking nothing): its hello, which says
    the rung or why this host refuses sandboxes (the end, then); then a sandbox forked on each
    request until the worker is gone. ``collapse``: back the warm heap with huge pages first
    (``collapse_into_huge_pages``; a zygote forked from the image finds it done). 0 once it
    ends: a forked zygote's exit status."""
    if rung is None or refused is not None:
        _reply(control, Hello(rung, uid_block(os.getpid())[0], refused).to_json())
        return 0
    # Orphans of a sandbox without namespaces come back here, where the sweep ends them.
    linux.prctl(PR_SET_CHILD_SUBREAPER, 1)
    sandboxes = _Sandboxes(control, rung)
    _reply(control, Hello(rung, sandboxes.uid).to_json())  # a worker gone meanwhile: the read below says so
    # After the hello, not before: the worker goes on to its first student meanwhile (0.1 to
    # 0.2 s here), and before the first fork, so no sandbox holds the small pages meanwhile.
    if collapse:
        collapse_into_huge_pages()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 20, 2)
        except OSError:
            data = b""
        if not data:  # the worker is gone or done: so are its sandboxes
            sandboxes.end_all()
            return 0
        request: dict[str, Any] = json.loads(data)
        if request["op"] == "spawn":
            _reply(control, {"pid": sandboxes.spawn(SandboxRequest.from_json(request["request"]), fds)})
        elif request["op"] == "sweep":
            _reply(control, {"swept": sandboxes.sweep(request["pid"])})
        elif request["op"] == "end":
            _reply(control, {"status": sandboxes.end(request["pid"])})


class _Sandboxes:
    """One worker's live sandboxes, as this zygote forks, sweeps and ends them."""

    def __init__(self, control: socket.socket, rung: Rung) -> None:
        self.control = control
        self.rung = rung
        # As root, a uid of its own per sandbox (see uid_block): rlimits on processes are per
        # uid, kill(-1) as that uid reaches only that sandbox, and what the kernel keeps per
        # uid is no channel to the next student.
        self.uids = _SandboxUids(uid_block(os.getpid()))
        self.uid = self.uids.block[0]
        self.address_space = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        self.live: dict[int, str | None] = {}  # pid -> its scratch folder when it has no namespaces
        self.sweeper = Sweeper(self.uids.of if rung.drop_uid else None, self.live)
        self.cpu = cpushare.open_groups(os.getpid()) if rung.drop_uid else None
        if guard.available():  # built once here, loaded by each sandbox
            guard.prepared(not rung.namespaces)
        # Each sandbox checks on it through this (``child._die_with_zygote``); kernels before
        # 5.3 have no pidfd, and their sandboxes rely on the parent-death signal alone.
        try:
            self.pidfd: int | None = os.pidfd_open(os.getpid())
        except OSError:
            self.pidfd = None
        # The user namespace comes first: it owns the others, so the child can set them up.
        self.flags = NAMESPACES | (CLONE_NEWUSER if rung.user_namespace else 0)

    def spawn(self, wanted: SandboxRequest, fds: list[int]) -> int:
        """Fork a sandbox for ``wanted`` on the socket and output pipe ``fds``; its pid."""
        from . import child

        rung = self.rung
        processes = wanted.processes
        if rung.without_namespaces and not rung.drop_uid:
            # The limit counts every task of the uid, the grader's own included.
            processes += tasks_of_uid(os.getuid())
        uid = self.uids.draw() if rung.drop_uid else self.uid
        workdir = None
        if not rung.namespaces:
            workdir = tempfile.mkdtemp(prefix="grader-sandbox-")
            if rung.drop_uid:
                os.chown(workdir, uid, uid)
        spec = ChildSpec(wanted, rung, uid, (os.getuid(), os.getgid()),
                         self.address_space + wanted.memory, processes, workdir)
        group = self.cpu.claim() if self.cpu is not None else None
        try:
            pid = linux.fork_into_namespaces(self.flags) if rung.namespaces else os.fork()
        except BaseException:
            if group is not None:
                os.close(group[1])
            raise
        if pid == 0:
            code = 70
            try:
                self.control.close()
                restore_interrupts()
                code = child.main(spec, fds[0], fds[1], self.pidfd, group[1] if group else None)
            except BaseException:  # anything that escapes is the child's failure alone
                code = 71
                try:
                    traceback.print_exc()  # to the output pipe once the child has set it up
                except BaseException:
                    pass
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        self.live[pid] = workdir
        if rung.drop_uid:
            self.uids.of[pid] = uid
        if group is not None:
            assert self.cpu is not None
            os.close(group[1])
            self.cpu.hold(pid, group[0])
        return pid

    def sweep(self, pid: int) -> int:
        """End what sandbox ``pid`` left running, the sandbox itself spared; how many."""
        return self.sweeper.sweep(pid, spare=True) if pid in self.live else 0

    def end(self, pid: int) -> int | None:
        """Kill sandbox ``pid`` and everything it left; its exit status (None: not ours)."""
        if pid not in self.live:
            return None
        if pid not in self.sweeper.status:  # not reaped yet
            kill_sandbox(pid, self.rung.namespaces)
            _, raw = os.waitpid(pid, 0)
            self.sweeper.status[pid] = os.waitstatus_to_exitcode(raw)
        # A PID namespace is empty once its PID 1 has been reaped (the kernel kills and
        # reaps every other member first), so only a sandbox without one needs a sweep.
        if not self.rung.namespaces:
            self.sweeper.sweep(pid, spare=False)
        status = self.sweeper.status.pop(pid)
        self.uids.of.pop(pid, None)
        if self.cpu is not None:
            self.cpu.leave(pid)
        workdir = self.live.pop(pid)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        return status

    def end_all(self) -> None:
        for pid in list(self.live):
            if pid not in self.sweeper.status:
                kill_sandbox(pid, self.rung.namespaces)
            self.sweeper.sweep(pid, spare=False)
        if self.cpu is not None:
            self.cpu.close()


class _SandboxUids:
    """The uids of one zygote's sandboxes: each new sandbox the next of the block, skipping
    the block's first (the zygote's name for it) and any a live sandbox still holds; the block
    comes round again only after UIDS_PER_ZYGOTE - 1 sandboxes."""

    def __init__(self, block: range) -> None:
        self.block = block
        self.of: dict[int, int] = {}  # live sandbox pid -> its uid
        self.drawn = 0

    def draw(self) -> int:
        held = set(self.of.values())
        while True:
            self.drawn += 1
            uid = self.block[1 + self.drawn % (len(self.block) - 1)]
            if uid not in held:
                return uid


def _reply(control: socket.socket, message: dict[str, Any]) -> None:
    """Answer the worker; if it is gone, the next read of the control socket says so and
    this zygote ends its sandboxes there."""
    try:
        control.send(json.dumps(message).encode())
    except OSError:
        pass




if __name__ == "__main__":
    # FD WARM... [--for-students MODULE...]
    fd, *modules = sys.argv[1:]
    cut = modules.index(FOR_STUDENTS) if FOR_STUDENTS in modules else len(modules)
    main(int(fd), modules[:cut], modules[cut + 1:])
    # Its sandboxes are ended: skip the interpreter's teardown of torch (about a second here),
    # which the worker, waiting for this process, would wait for.
    sys.stderr.flush()
    os._exit(0)
