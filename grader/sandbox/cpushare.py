"""A CPU cgroup of its own for each sandbox, where the host lets the zygote make one: root,
with the cpu controller writable (v1; or v2 where the zygote's cgroup already hands ``cpu``
to its children, as the root cgroup may).

The scheduler shares the CPU between cgroups by weight, all equal here, so a sandbox of 63
spinning processes gets one sandbox's share, not 63 processes' (the kernel's autogroups do
that per session, which student code can start at will, and only outside any cgroup). Each
zygote makes one group, ``grader-zygote-PID``, beside itself, and a group per sandbox inside
it, removed when the sandbox ends. Elsewhere (no root, a read-only ``/sys/fs/cgroup`` as in a
container) nothing is made, and the process limit and ``RLIMIT_CPU`` bound a sandbox.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from ..grading.host import cgroup_dirs


class CpuGroups:
    """One zygote's group and its sandboxes' groups within it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.of: dict[int, Path] = {}  # sandbox pid -> its group
        self.busy: list[Path] = []  # groups of ended sandboxes whose processes were still leaving

    def enter(self, pid: int) -> None:
        """Move sandbox ``pid`` (just forked: nothing of the student's runs yet) into a group
        of its own. Where that fails, the sandbox runs on without one."""
        group = self.folder / f"sandbox-{pid}"
        try:
            group.mkdir()
            (group / "cgroup.procs").write_text(str(pid))
        except OSError:
            _remove(group)
            return
        self.of[pid] = group

    def leave(self, pid: int) -> None:
        """Remove the group of sandbox ``pid``, which has ended (and those that were busy)."""
        group = self.of.pop(pid, None)
        if group is not None:
            self.busy.append(group)
        self.busy = [g for g in self.busy if not _remove(g)]

    def close(self) -> None:
        """Remove every group left, the zygote's own last (once its sandboxes have ended)."""
        self.busy += self.of.values()
        self.of.clear()
        deadline = time.monotonic() + 1.0  # a killed namespace's processes take a moment to leave
        self.leave(0)
        while self.busy and time.monotonic() < deadline:
            time.sleep(0.01)
            self.leave(0)
        _remove(self.folder)


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
        return CpuGroups(folder)
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
