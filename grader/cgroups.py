"""Where this process sits in the cgroup hierarchies: for a controller, its cgroup's folder and
the ancestors within the mount, both cgroup versions. The process's cgroup comes from
``/proc/self/cgroup``, where its hierarchy is mounted from ``/proc/self/mountinfo``. ``root``
stands for ``/`` (tests hand in a fake tree). The run reads its limits there
(``grader.run.host``), and the zygote makes its sandboxes' CPU groups there
(``grader.sandbox.cpushare``)."""

from __future__ import annotations

import os
from pathlib import Path


def cgroup_dirs(controller: str, root: Path) -> list[tuple[int, list[Path]]]:
    """For each hierarchy holding ``controller`` (v1) and the v2 one: (version, this process's
    cgroup folder and its ancestors up to the mount)."""
    found = []
    mounts = _mounts(root)
    for line in read_text(root / "proc/self/cgroup").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        version = 2 if parts[0] == "0" and parts[1] == "" else 1
        if version == 1 and controller not in parts[1].split(","):
            continue
        for mount_version, options, mount_root, point in mounts:
            if mount_version != version or (version == 1 and controller not in options):
                continue
            inside = os.path.relpath(parts[2], mount_root)
            if inside.startswith(".."):  # the cgroup is not below what is mounted (a cgroup namespace's view)
                inside = "."
            folder = root / point.lstrip("/") / inside
            chain = [folder, *[p for p in folder.parents if root / point.lstrip("/") in (p, *p.parents)]]
            found.append((version, chain))
    return found


def _mounts(root: Path) -> list[tuple[int, set[str], str, str]]:
    """The cgroup mounts: (version, v1 controllers, the hierarchy's folder mounted, mount point)."""
    mounts = []
    for line in read_text(root / "proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        mounts.append((2 if tail[0] == "cgroup2" else 1, set(tail[2].split(",")), _unescape(fields[3]),
                       _unescape(fields[4])))
    return mounts


def _unescape(field: str) -> str:
    """mountinfo writes a space as \\040 (and tab, newline, backslash likewise)."""
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def read_text(path: Path) -> str:
    """A cgroup or /proc file's text, stripped; "" where it cannot be read."""
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""
