"""The sandboxed process: isolate itself, run the notebook's cells, answer requests.

Forked (in new namespaces when the host allows) from the warm zygote, so numpy and torch
are already imported. Results go back only over the socket the grader handed over; what
the student prints goes to a pipe the grader drains and caps, and is never parsed.

Nothing here is a security boundary on its own once student code runs (it shares this
process): the boundaries are the namespaces, the read-only mounts, the uid, the dropped
capabilities, the rlimits set before the first cell runs (without namespaces: the seccomp
filter, and Landlock where the rung has it), and the trusted worker and zygote outside,
which enforce time limits and sweep up leftover processes whatever the student did to
this module.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import select
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .. import linux
from ..linux import (
    CAPABILITY_VERSION_3,
    PR_CAP_AMBIENT,
    PR_CAP_AMBIENT_CLEAR_ALL,
    PR_CAPBSET_DROP,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_PDEATHSIG,
)
from ..runners import serve
from . import cpushare, guard, ladder, landlock, nullplot, paths
from .channel import Channel
from .mounts import isolate_filesystem
from .spec import ChildSpec


def main(spec: ChildSpec, sock_fd: int, out_fd: int, zygote_fd: int | None = None,
         group_fd: int | None = None) -> int:
    """Runs in the forked child; returns the exit code. ``zygote_fd``: a pidfd of the zygote
    (``_die_with_zygote``); ``group_fd``: the entry of this sandbox's CPU group, if it has
    one (``cpushare.join``)."""
    if group_fd is not None:
        cpushare.join(group_fd)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    # Nothing of the zygote's (its control socket above all) may stay reachable; its pidfd
    # only until student code could use it.
    low = 3
    for fd in sorted({sock_fd} | ({zygote_fd} if zygote_fd is not None else set())):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 65536)
    linux.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    # A session of its own: out of the grader's process group (kill(0), killpg), and the
    # kernel's autogroup scheduling then shares the CPU per session, not per process.
    os.setsid()
    # Under memory pressure the kernel's OOM killer takes a sandbox before the grader.
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass
    rung, request = spec.rung, spec.request
    if rung.namespaces:
        if rung.user_namespace:
            ladder.map_ids(*spec.host_ids)
            # Its own limits, while it holds CAP_SYS_RESOURCE there: no user namespace inside
            # (one would give student code capabilities again, over its own namespaces).
            with open("/proc/sys/user/max_user_namespaces", "w") as handle:
                handle.write("0")
        isolate_filesystem([Path(p) for p in request.hide], [Path(p) for p in request.keep])
        linux.libc().sethostname(b"sandbox", 7)
    else:
        # Orphaned descendants come back to this process, which ends them between items.
        linux.prctl(PR_SET_CHILD_SUBREAPER, 1)
        assert spec.workdir is not None
        os.chdir(spec.workdir)
    rules = None
    if rung.landlock:
        # The same paths hidden as with namespaces; /tmp but for its own working folder.
        roots = [Path("/", name) for name in paths.SYSTEM_FOLDERS if name != "tmp"]
        roots += [Path(p) for p in request.keep] + [Path(os.getcwd())]
        rules = landlock.ruleset(landlock.readable(roots, [Path(p) for p in request.hide]))
    _set_limits(spec)
    _drop_bounding_set()  # needs CAP_SETPCAP, which the uid change below takes away
    if rung.drop_uid:
        uid = spec.uid
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    _clear_capabilities()
    linux.prctl(PR_SET_NO_NEW_PRIVS, 1)
    _die_with_zygote(zygote_fd)  # before the filter, which may refuse prctl
    # Without namespaces the grader's own processes and files are in reach: the filter
    # keeps them safe. It refuses signals too, so the zygote ends leftovers from outside.
    filtered = not rung.namespaces and guard.available()
    if rules is not None:
        landlock.enforce(rules)
    _filter(filtered)
    os.environ.clear()
    os.environ.update({"HOME": os.getcwd(), "TMPDIR": os.getcwd(), "MPLBACKEND": "Agg",
                       "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "LANG": "C.UTF-8",
                       "PYTHONHASHSEED": "0"})
    tempfile.tempdir = os.getcwd()  # not the zygote's cached choice (nor a probe by writing)
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    sys.stdin = open(0, encoding="utf-8", closefd=False)
    sock = socket.socket(fileno=sock_fd)
    return _serve(sock, kill_all=rung.namespaces or rung.drop_uid,
                  signals=not filtered)


def _filter(without_namespaces: bool) -> None:
    """The system-call filter, last: on every rung, no keyring shared with another sandbox
    and no new namespaces; without namespaces, nothing against the grader either."""
    if guard.available():
        guard.install(without_namespaces)


def _die_with_zygote(zygote_fd: int | None) -> None:
    """Killed when the zygote ends, from here on, whatever ends it (a ``kill -9`` of the run's
    whole process group, say): the uid drop cleared the parent-death signal set at the fork (a
    change of effective uid or gid does, prctl(2)), so it is set again once the credentials are
    final, before student code. A zygote that ended before sends none: its pidfd says so, where
    ``getppid`` cannot (PID 1 of a namespace has no parent in it)."""
    linux.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if zygote_fd is None:
        return
    ended = select.select([zygote_fd], [], [], 0)[0]
    os.close(zygote_fd)
    if ended:
        os.kill(os.getpid(), signal.SIGKILL)  # what the parent-death signal would have done


def _drop_bounding_set() -> None:
    """No capability can come back, not even through an exec (of a file with capabilities,
    or as root). Refused without CAP_SETPCAP (degraded mode): nothing to drop there."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        linux.prctl(PR_CAPBSET_DROP, cap)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _clear_capabilities() -> None:
    """Empty effective, permitted, inheritable and ambient sets: the capabilities a process
    holds in the user namespace it created (all of them) end here, before student code."""
    linux.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = _CapHeader(CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if linux.libc().capset(ctypes.byref(header), data) != 0:
        raise linux.last_error("capset")


def _set_limits(spec: ChildSpec) -> None:
    def limit(kind: int, value: int) -> None:
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass  # a hard limit below ours already applies

    limit(resource.RLIMIT_AS, spec.address_space)
    limit(resource.RLIMIT_NPROC, spec.processes)
    limit(resource.RLIMIT_FSIZE, spec.request.file_size)
    limit(resource.RLIMIT_CPU, spec.request.cpu_seconds)
    limit(resource.RLIMIT_CORE, 0)
    limit(resource.RLIMIT_NOFILE, 256)
    limit(resource.RLIMIT_MSGQUEUE, 0)
    limit(resource.RLIMIT_MEMLOCK, 0)


_CATCHABLE = [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]


def _serve(sock: socket.socket, kill_all: bool, signals: bool) -> int:
    """Load a notebook and answer its requests; then, on the same terms, each later notebook
    of the student sent here (``grader.sandbox.client.Student``)."""
    channel = Channel(sock)
    handlers: dict[int, Any] = {}
    for number in _CATCHABLE:
        try:
            handlers[number] = signal.getsignal(number)
        except (ValueError, OSError):
            pass
    nullplot.install()  # figures are not graded; drawing them would cost more than the checks
    # What a notebook may change outside its namespace and a kernel of its own would not
    # pass on: put back before the next notebook.
    home, path, environment = os.getcwd(), list(sys.path), dict(os.environ)
    threads = _thread_count()
    job = channel.receive()
    while job is not None and job.get("op") == "load":
        _clean_up_processes(kill_all, signals)
        if _thread_count() > threads:  # a thread the last notebook left would run on into this one
            channel.send({"event": "busy"})
            return 0
        os.chdir(home)
        sys.path[:] = path
        os.environ.clear()
        os.environ.update(environment)
        job = _notebook(channel, job, kill_all, signals, handlers)
    return 0


def _notebook(channel: Channel, job: dict[str, Any], kill_all: bool, signals: bool,
              handlers: dict[int, Any]) -> dict[str, Any] | None:
    """One notebook: its cells run in a namespace of its own, then its requests answered until
    the grader closes the sandbox (None) or sends the next notebook (that job)."""
    namespace = serve.new_namespace(job["notebook"])
    channel.limit = job["reply_bytes"]
    errors = []
    for number, source in job["cells"]:
        channel.send({"event": "cell", "number": number})
        error = serve.exec_cell(number, source, namespace)
        if error is not None:
            errors.append((number, error))
    _reset_signals(handlers)
    threads = _thread_count()
    channel.send({"event": "loaded", "errors": serve.kept_errors(errors)})
    while True:
        message = channel.receive()
        if message is None or message.get("op") == "close":
            return None
        if message.get("op") == "load":
            namespace.clear()  # its objects go before the next notebook's cells run
            return message
        if message.get("op") == "end_item":
            _clean_up_processes(kill_all, signals)
            _reset_signals(handlers)
            # Threads the item started and left running would go on into the next item;
            # threads cannot be ended one by one, so the grader starts a new sandbox.
            channel.send({"event": "item_done", "threads": max(0, _thread_count() - threads)})
            continue
        channel.send(serve.handle(message, namespace), instead=serve.reply_too_long)


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _reset_signals(handlers: dict[int, Any]) -> None:
    """Undo what student code did to signals: timers, handlers, the blocked set."""
    signal.alarm(0)
    for timer in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF):
        signal.setitimer(timer, 0)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for number, handler in handlers.items():
        try:
            if signal.getsignal(number) is not handler and handler is not None:
                signal.signal(number, handler)
        except (ValueError, OSError, TypeError):
            pass


def _clean_up_processes(kill_all: bool, signals: bool) -> None:
    """End every process the item left behind (daemons too); the zygote sweeps again.

    As PID 1 of the sandbox's namespace, or as the only process of the sandbox's own uid,
    ``kill(-1)`` reaches exactly the sandbox's other processes. Without either, only the
    descendants, which come back to this process as their subreaper. Where the filter
    refuses signals, only the dead are reaped here (they count against the process limit
    until then): the zygote ends the rest.
    """
    for _ in range(100):
        if signals:
            for pid in [-1] if kill_all else _descendants(os.getpid()):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        remaining = False
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                break
            if pid == 0:
                remaining = True
                break
        if not remaining or not signals:
            return
        time.sleep(0.002)


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for pid in children.get(stack.pop(), []):
            found.append(pid)
            stack.append(pid)
    return found
