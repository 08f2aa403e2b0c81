"""A CPU cgroup of its own for each sandbox, where the host lets the zygote make one: root,
with the cpu controller writable (v1; or v2 where the zygote's cgroup already hands ``cpu``
to its children, as the root cgroup may).

The scheduler shares the CPU between cgroups by weight, all equal here, so a sandbox of 63
spinning processes gets one sandbox's share, not 63 processes' (the kernel's autogroups do
that per session, which student code can start at will, and only outside any cgroup). Each
zygote makes one group, ``grader-zygote-PID``, beside itself, and a group per live sandbox
inside it, kept for the next sandbox once empty and removed when the zygote ends. Elsewhere
(no root, a read-only ``/sys/fs/cgroup`` as in a container) nothing is made, and the process
limit and ``RLIMIT_CPU`` bound a sandbox.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from ..cgroups import cgroup_dirs


class CpuGroups:
    """One zygote's group and its sandboxes' groups within it. A group is made once and kept
    for the zygote's life: an ended sandbox's group, once empty (its processes gone), is the
    next sandbox's. Each sandbox moves itself in (``join``), first thing: a process that
    moves another waits for the kernel (an RCU grace period: 3 to 10 ms, 0.5 ms of CPU),
    and one that moves only itself, on cgroup v1, does not."""

    def __init__(self, folder: Path, version: int) -> None:
        self.folder = folder
        # v1 moves a lone thread, the caller, without the global lock; v2 has no such entry
        # outside threaded groups, and moves the whole process.
        self.entry = "tasks" if version == 1 else "cgroup.procs"
        self.of: dict[int, Path] = {}  # sandbox pid -> its group
        self.spare: list[Path] = []  # groups of ended sandboxes, empty or still emptying
        self.made = 0

    def claim(self) -> tuple[Path, int] | None:
        """A group for the sandbox about to be forked, of its own (an empty one of an ended
        sandbox's where there is one), with its entry open for the sandbox to ``join``; None
        where that fails, and the sandbox runs on without one."""
        group = self._empty_spare()
        if group is None:
            self.made += 1
            group = self.folder / f"sandbox-{self.made}"
        try:
            group.mkdir(exist_ok=True)
            return group, os.open(group / self.entry, os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            _remove(group)
            return None

    def hold(self, pid: int, group: Path) -> None:
        """Sandbox ``pid`` was forked to join ``group``."""
        self.of[pid] = group

    def _empty_spare(self) -> Path | None:
        """A spare group that no process is in any more (none of an ended sandbox's lingers)."""
        for index, group in enumerate(self.spare):
            try:
                empty = not (group / "cgroup.procs").read_text().strip()
            except OSError:
                empty = False
            if empty:
                return self.spare.pop(index)
        return None

    def leave(self, pid: int) -> None:
        """Sandbox ``pid`` has ended: its group is spare."""
        group = self.of.pop(pid, None)
        if group is not None:
            self.spare.append(group)

    def close(self) -> None:
        """Remove every group, the zygote's own last (once its sandboxes have ended)."""
        busy = [*self.spare, *self.of.values()]
        self.spare, self.of = [], {}
        deadline = time.monotonic() + 1.0  # a killed namespace's processes take a moment to leave
        busy = [g for g in busy if not _remove(g)]
        while busy and time.monotonic() < deadline:
            time.sleep(0.01)
            busy = [g for g in busy if not _remove(g)]
        _remove(self.folder)


def join(entry: int) -> None:
    """In a sandbox, before anything else: move this process, still one thread, into the
    group whose entry ``entry`` is (``CpuGroups.claim``); every process and thread it starts
    then starts there. Where the kernel refuses, it runs on without one."""
    try:
        os.write(entry, b"0")  # "0": the writer itself
    except OSError:
        pass
    finally:
        os.close(entry)


def open_groups(zygote_pid: int) -> CpuGroups | None:
    """The zygote's group, made beside it; None where this host gives none."""
    if os.geteuid() != 0:
        return None
    try:
        hierarchies = cgroup_dirs("cpu", Path("/"))
    except OSError:
        return None
    for version, chain in sorted(hierarchies):  # v1 first: its cpu controller needs no handing down
        parent = chain[0]
        _remove_orphans(parent)
        folder = parent / f"grader-zygote-{zygote_pid}"
        try:
            if version == 2 and "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
                continue
            folder.mkdir(exist_ok=True)
            if version == 2:
                (folder / "cgroup.subtree_control").write_text("+cpu")
        except OSError:
            _remove(folder)
            continue
        return CpuGroups(folder, version)
    return None


def available() -> bool:
    """Whether this process could give its sandboxes groups (tried, and undone)."""
    groups = open_groups(os.getpid())
    if groups is None:
        return False
    groups.close()
    return True


def _remove_orphans(parent: Path) -> None:
    """Remove the groups of zygotes that are gone: a zygote killed outright (``kill -9`` of a
    run's process group) cannot remove its own. A group whose processes are still there stays."""
    for folder in parent.glob("grader-zygote-*"):
        pid = folder.name.rsplit("-", 1)[1]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        for group in folder.glob("sandbox-*"):
            _remove(group)
        _remove(folder)


def _remove(group: Path) -> bool:
    """Remove an empty group; False while processes are still leaving it."""
    try:
        group.rmdir()
    except FileNotFoundError:
        return True
    except OSError as exc:
        return exc.errno not in (errno.EBUSY, errno.ENOTEMPTY)
    return True
