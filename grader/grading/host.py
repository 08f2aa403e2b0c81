"""What the machine, or the container the grader runs in, allows: CPUs and memory.

A container's CPU limit is a cgroup quota, not fewer CPUs: under ``docker run --cpus 2`` on a
64-core host the affinity mask still holds 64 CPUs. So the default number of workers is the
smaller of the affinity mask and the quota (rounded up: a fraction of a CPU still does work),
and a memory limit that cannot hold that many workers is said, with the ``--jobs`` that fits.

Both cgroup versions are read: v2's ``cpu.max`` and ``memory.max``, v1's
``cpu.cfs_quota_us``/``cpu.cfs_period_us`` and ``memory.limit_in_bytes``. The process's
cgroup comes from ``/proc/self/cgroup``, where its hierarchy is mounted from
``/proc/self/mountinfo``; the limit is the tightest of that cgroup and its ancestors within
the mount. ``root`` stands for ``/`` (tests hand in a fake tree).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

# The memory a run needs, from benchmarks/README.md's "Big machines" (peak PSS of the whole
# process tree): every worker and zygote is forked from one warm image, so torch's pages are
# counted once. On 2 cores, 441 MB with one worker and 616 MB with eight (N = 200); on 16
# cores with the CUDA build of torch, 839 MB with one and 1,258 MB with sixteen (N = 1,000):
# 25 to 37 MB per added worker, its heap growing with a long class. So about 60 MB per worker
# (a sandbox's own pages at its peak included) on top of the main process and the image.
BASE_MB = 420
PER_WORKER_MB = 60
_NO_LIMIT = 1 << 60  # v1 writes "no limit" as a page-rounded 2**63 - 1


@dataclass(frozen=True)
class Cpus:
    """How many workers to start by default, and where the number came from."""

    count: int
    source: str  # "cgroup CPU quota 2.0", "CPU affinity"


def default_cpus(root: Path = Path("/")) -> Cpus:
    """The CPUs this process may use: its affinity mask, capped by its cgroup's CPU quota."""
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    quota = cpu_quota(root)
    if quota is not None and math.ceil(quota) < affinity:
        return Cpus(max(1, math.ceil(quota)), f"cgroup CPU quota {round(quota, 2)}")
    return Cpus(affinity, "CPU affinity")


def cpu_quota(root: Path = Path("/")) -> float | None:
    """The cgroup's CPU quota in CPUs (``2.0`` for ``--cpus 2``), or None where there is none."""
    quotas = []
    for version, folder in cgroup_dirs("cpu", root):
        for place in folder:
            if version == 2:
                words = _read(place / "cpu.max").split()
                if len(words) == 2 and words[0] != "max":
                    quotas.append(int(words[0]) / int(words[1]))
            else:
                quota, period = _read(place / "cpu.cfs_quota_us"), _read(place / "cpu.cfs_period_us")
                if quota and period and int(quota) > 0:
                    quotas.append(int(quota) / int(period))
    return min(quotas) if quotas else None


def memory_limit(root: Path = Path("/")) -> int | None:
    """The cgroup's memory limit in bytes, or None where there is none."""
    limits = []
    for version, folder in cgroup_dirs("memory", root):
        for place in folder:
            text = _read(place / ("memory.max" if version == 2 else "memory.limit_in_bytes"))
            if text and text != "max" and int(text) < _NO_LIMIT:
                limits.append(int(text))
    return min(limits) if limits else None


def jobs_for_memory(limit: int) -> int:
    """The most workers whose run fits in ``limit`` bytes (at least 1)."""
    return max(1, (limit // 2**20 - BASE_MB) // PER_WORKER_MB)


def memory_warning(jobs: int, root: Path = Path("/")) -> str | None:
    """One line when the cgroup's memory limit cannot hold ``jobs`` workers, else None."""
    limit = memory_limit(root)
    if limit is None or limit // 2**20 >= BASE_MB + PER_WORKER_MB * jobs:
        return None
    fits = jobs_for_memory(limit)
    advice = f"use --jobs {fits}" if fits < jobs else "one worker may not fit either"
    return (f"the cgroup's memory limit ({limit // 2**20} MB) is less than {jobs} workers need (about "
            f"{BASE_MB} MB + {PER_WORKER_MB} MB per worker): {advice}")


def cgroup_dirs(controller: str, root: Path) -> list[tuple[int, list[Path]]]:
    """For each hierarchy holding ``controller`` (v1) and the v2 one: (version, this process's
    cgroup folder and its ancestors up to the mount)."""
    found = []
    mounts = _mounts(root)
    for line in _read(root / "proc/self/cgroup").splitlines():
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
    for line in _read(root / "proc/self/mountinfo").splitlines():
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


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""
