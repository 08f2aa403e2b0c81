"""What the machine, or the container the grader runs in, allows: CPUs and memory.

A container's CPU limit is a cgroup quota, not fewer CPUs: under ``docker run --cpus 2`` on a
64-core host the affinity mask still holds 64 CPUs. So the default number of workers is the
smaller of the affinity mask and the quota (rounded up: a fraction of a CPU still does work),
and a memory limit that cannot hold that many workers is said, with the ``--jobs`` that fits.

Both cgroup versions are read: v2's ``cpu.max`` and ``memory.max``, v1's
``cpu.cfs_quota_us``/``cpu.cfs_period_us`` and ``memory.limit_in_bytes``, in the process's
cgroup and its ancestors within the mount (``grader.cgroups`` finds them); the limit is the
tightest. ``root`` stands for ``/`` (tests hand in a fake tree).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from ..cgroups import cgroup_dirs, read_text

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
                words = read_text(place / "cpu.max").split()
                if len(words) == 2 and words[0] != "max":
                    quotas.append(int(words[0]) / int(words[1]))
            else:
                quota, period = read_text(place / "cpu.cfs_quota_us"), read_text(place / "cpu.cfs_period_us")
                if quota and period and int(quota) > 0:
                    quotas.append(int(quota) / int(period))
    return min(quotas) if quotas else None


def memory_limit(root: Path = Path("/")) -> int | None:
    """The cgroup's memory limit in bytes, or None where there is none."""
    limits = []
    for version, folder in cgroup_dirs("memory", root):
        for place in folder:
            text = read_text(place / ("memory.max" if version == 2 else "memory.limit_in_bytes"))
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
