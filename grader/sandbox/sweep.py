"""What a sandbox leaves running, ended by its zygote: the sandbox killed (its PID namespace
with it, where it has one), and the processes it left behind stopped, then killed, whatever
its code did to the sandbox's own clean-up.
"""

from __future__ import annotations

import errno
import os
import signal
import time


def kill_sandbox(pid: int, namespaces: bool) -> None:
    # PID 1 of a namespace takes every process of the namespace with it; without
    # namespaces the child leads its own session and process group.
    for kill in (os.kill,) if namespaces else (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Sweeper:
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


def tasks_of_uid(uid: int) -> int:
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

