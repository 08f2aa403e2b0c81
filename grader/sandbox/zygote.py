"""The warm zygote: imports what the assignment bundle lists (numpy, torch, ...) once, then
forks a sandboxed child per notebook on request.

It is forked from the run's warm image (``grader.sandbox.image``), or started fresh on its own
(``python -m grader.sandbox.zygote``: a Dask worker's), so its memory holds nothing a child
must not see: no reference, no checks, no answers. It
never runs a torch operation itself, and pins torch to one thread, because forking a
process whose torch thread pool is running can hang the child.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import importlib
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from .. import linux
from ..linux import CLONE_NEWUSER, MADV_COLLAPSE, PR_SET_CHILD_SUBREAPER
from ..records.rung import Rung
from ..stop import INTERRUPTS, STOPS
from ..threads import pin_torch
from . import cpushare, guard
from .ladder import NAMESPACES, imports_refused, keep_from_same_uid, probe
from .spec import FOR_STUDENTS, ChildSpec, Hello, SandboxRequest

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


def _import_path() -> list[Path]:
    """The folders students' imports search: this interpreter's path but the grader's own
    checkout, which sandboxes must not see."""
    project = Path(__file__).resolve().parents[2]
    folders = [Path(p).resolve() for p in sys.path if p and Path(p).is_dir()]
    return [f for f in dict.fromkeys(folders) if f != project]


HUGE_PAGE = 2 << 20


def _collapse_into_huge_pages() -> None:
    """Back the warm heap (~170 MB after importing torch) with 2 MiB pages where the kernel
    can (Linux 6.1+, transparent huge pages not disabled): a fork then copies a few hundred
    page-table entries instead of ~44,000, and a sandbox's exit frees as few, which made
    forking and ending a sandbox about three times cheaper here. A sandbox's own writes are
    still copied 4 KiB at a time. Where the kernel refuses, nothing changes."""
    libc = linux.libc
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    with open("/proc/self/maps") as handle:
        regions = [line.split() for line in handle]
    for fields in regions:
        name = fields[5] if len(fields) > 5 else ""
        if not fields[1].startswith("rw") or name not in ("", "[heap]"):
            continue  # files and stacks stay as they are
        start, end = (int(x, 16) for x in fields[0].split("-"))
        first, last = -(-start // HUGE_PAGE) * HUGE_PAGE, end // HUGE_PAGE * HUGE_PAGE
        if last > first:
            libc.madvise(first, last - first, MADV_COLLAPSE)


CHILD = f"{__package__}.child"  # what a sandbox runs: imported with the warm modules, after the probe


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
    return rung, imports_refused(rung, uid, _import_path())


def warm_up(modules: list[str]) -> None:
    """Import ``modules`` (the bundle's warm lists), then put them out of the collector's
    reach: a forked process's collections (a worker's, a sandbox's) would otherwise walk every
    imported object and so copy its page; a worker's own imports took 80 ms instead of 6. One
    that is not installed is skipped: the items that need it fail with an ImportError (a
    NumPy-only install without torch, say)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    pin_torch()  # one thread: forking while torch's pool runs can hang the child
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None:
        matplotlib.use("Agg")
    gc.freeze()


def ignore_interrupts() -> None:
    """Ctrl-C at the terminal, and a scheduler's stop sent to the whole process group
    (``grader.stop``), are the main process's to answer: it ends the workers, and their end
    closes the control sockets (a process that died of the signal here would leave its
    sandboxes running). A run's main process starts this process with them blocked (a signal
    mask survives exec): one that came meanwhile is dropped here, not raised in the imports.
    Every process forked from here inherits the ignoring; a sandbox undoes it
    (``restore_interrupts``)."""
    for number in INTERRUPTS:
        signal.signal(number, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)


def restore_interrupts() -> None:
    """A sandbox's signals as a fresh Python's: student code stops on Ctrl-C's exception
    (which a kernel survives), and the stop signals end it."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in STOPS:
        signal.signal(number, signal.SIG_DFL)


def main(control_fd: int, warm: list[str], for_students: list[str]) -> None:
    """Fork sandboxes on the requests of the control socket ``control_fd``, once ``warm`` and
    ``for_students`` are imported: a zygote started on its own (a Dask worker's, a test's).
    A local run's zygotes are forked from its warm image instead (``grader.sandbox.image``)."""
    control = socket.socket(fileno=control_fd)
    ignore_interrupts()
    rung, refused = refusal(uid_block(os.getpid())[0])
    if rung is None or refused is not None:
        _reply(control, Hello(rung, uid_block(os.getpid())[0], refused).to_json())
        return
    warm_up([*warm, *for_students, CHILD])
    serve(control, rung, collapse=True)


def serve(control: socket.socket, rung: Rung, *, collapse: bool) -> None:
    """Say hello on ``control``, then fork a sandbox on each of its requests until it ends.
    ``collapse``: back the warm heap with huge pages first (``_collapse_into_huge_pages``;
    a zygote forked from the image finds it done)."""
    # Orphans of a sandbox without namespaces come back here, where the sweep ends them.
    linux.prctl(PR_SET_CHILD_SUBREAPER, 1)
    sandboxes = _Sandboxes(control, rung)
    _reply(control, Hello(rung, sandboxes.uid).to_json())  # a worker gone meanwhile: the read below says so
    # After the hello, not before: the worker goes on to its first student meanwhile (0.1 to
    # 0.2 s here), and before the first fork, so no sandbox holds the small pages meanwhile.
    if collapse:
        _collapse_into_huge_pages()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 20, 2)
        except OSError:
            data = b""
        if not data:  # the worker is gone or done: so are its sandboxes
            sandboxes.end_all()
            return
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
        self.sweeper = _Sweeper(self.uids.of if rung.drop_uid else None, self.live)
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
            processes += _tasks_of_uid(os.getuid())
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
            _kill(pid, self.rung.namespaces)
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
                _kill(pid, self.rung.namespaces)
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


def _kill(pid: int, namespaces: bool) -> None:
    # PID 1 of a namespace takes every process of the namespace with it; without
    # namespaces the child leads its own session and process group.
    for kill in (os.kill,) if namespaces else (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class _Sweeper:
    """Ends every process a sandbox left, whatever its code did to the sandbox's own
    clean-up: the processes of the sandbox's uid, when it has one, and its descendants
    and the orphans adopted by this zygote (a subreaper) in any case."""

    def __init__(self, uids: dict[int, int] | None, live: dict[int, str | None]):
        self.uids = uids  # live sandbox pid -> its uid, where each has one
        self.live = live
        self.status: dict[int, int] = {}  # exit codes of sandboxes reaped while sweeping

    def sweep(self, pid: int, spare: bool) -> int:
        """End them all; ``spare`` keeps the sandbox's main process.

        Stopped first, killed once none is left running: a killed process frees a slot of
        the process limit that a running sibling of a fork swarm refills at once, while a
        stopped one keeps its slot and forks no more, so the swarm stops growing and each
        pass leaves fewer to catch. (A process stuck in the kernel may never show as
        stopped: after a few passes the rest are killed anyway.)
        """
        ended: set[int] = set()
        deadline = time.monotonic() + 5.0
        passes = 0
        while time.monotonic() < deadline:
            table = _process_table()
            victims = self._members(pid, table)
            if spare:
                victims.discard(pid)
            self._reap()
            if not victims:
                break
            running = {v for v in victims if table[v][1] not in "Tt"}
            passes += 1
            signal_number = signal.SIGSTOP if running and passes < 20 else signal.SIGKILL
            for victim in running if signal_number == signal.SIGSTOP else victims:
                _signal_if_same(victim, table[victim], signal_number)
            ended |= victims
            time.sleep(0.001)
        return len(ended)

    def _members(self, pid: int, table: dict[int, tuple[int, str, int]]) -> set[int]:
        me = os.getpid()
        children: dict[int, list[int]] = {}
        for proc, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(proc)
        own = self.uids.get(pid) if self.uids is not None else None
        found = {proc for proc, (_, _, uid) in table.items() if own is not None and uid == own}
        stack = [pid, *(c for c in children.get(me, []) if c not in self.live)]
        found.update(stack[1:])
        if pid in self.status:  # reaped already: its pid may belong to someone else now
            stack.remove(pid)
        while stack:
            for proc in children.get(stack.pop(), []):
                found.add(proc)
                stack.append(proc)
        if pid in table and pid not in self.status:
            found.add(pid)
        # The dead need no signal (a zombie stays listed until its parent reaps it).
        return {proc for proc in found if proc in table and table[proc][1] not in "ZX"}

    def _reap(self) -> None:
        """Reap this zygote's zombies: orphans it adopted, and sandboxes (keeping their status)."""
        while True:
            try:
                pid, raw = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.live:
                self.status[pid] = os.waitstatus_to_exitcode(raw)


def _signal_if_same(pid: int, seen: tuple[int, str, int], number: int) -> None:
    """Signal ``pid`` if it is still the process seen in the scan (same parent and uid):
    through a pidfd, so a pid that ended and was reused meanwhile is never signalled."""
    try:
        fd = os.pidfd_open(pid)
    except OSError as exc:
        if exc.errno == errno.ENOSYS:  # a kernel before 5.3: a plain kill
            try:
                os.kill(pid, number)
            except OSError:
                pass
        return  # otherwise: gone already
    try:
        now = _process_table([pid]).get(pid)
        if now is not None and (now[0], now[2]) == (seen[0], seen[2]):
            signal.pidfd_send_signal(fd, number)
    except OSError:
        pass
    finally:
        os.close(fd)


def _tasks_of_uid(uid: int) -> int:
    """Processes and threads whose real uid is ``uid`` (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as handle:
                fields = dict(line.split(b":", 1) for line in handle if b":" in line)
            if int(fields[b"Uid"].split()[0]) == uid:
                count += int(fields[b"Threads"])
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return count


def _process_table(pids: list[int] | None = None) -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, state letter, real uid) of every process (or of ``pids``)."""
    table = {}
    for pid in pids if pids is not None else (int(e) for e in os.listdir("/proc") if e.isdigit()):
        try:
            with open(f"/proc/{pid}/status", "rb") as handle:
                lines = handle.read().splitlines()
            fields = dict(line.split(b":", 1) for line in lines if b":" in line)
            table[pid] = (int(fields[b"PPid"]), fields[b"State"].split()[0].decode(),
                          int(fields[b"Uid"].split()[0]))
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return table


if __name__ == "__main__":
    # FD WARM... [--for-students MODULE...]
    fd, *modules = sys.argv[1:]
    cut = modules.index(FOR_STUDENTS) if FOR_STUDENTS in modules else len(modules)
    main(int(fd), modules[:cut], modules[cut + 1:])
    # Its sandboxes are ended: skip the interpreter's teardown of torch (about a second here),
    # which the worker, waiting for this process, would wait for.
    sys.stderr.flush()
    os._exit(0)
