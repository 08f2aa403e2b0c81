"""A real cgroup with a CPU quota and a memory limit, for tests that run a command inside
one (as ``docker run --cpus --memory`` would). Needs root and a writable cgroup hierarchy
holding the controller, v1 or v2; ``limited`` says in one line why not where there is none."""

from __future__ import annotations

import contextlib
import os
import secrets
import select
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from grader.run.host import cgroup_dirs

PERIOD_US = 100_000


class NoCgroup(Exception):
    """Why this host cannot give a test its own cgroup."""


@dataclass(frozen=True)
class Cgroup:
    folders: tuple[Path, ...]  # one per hierarchy (v1: cpu and memory apart; v2: one)
    version: int

    def enter(self) -> None:
        """Move the calling process in (a ``preexec_fn``: the command then starts inside)."""
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def wait_empty(self, seconds: float = 30) -> None:
        """Wait (on pidfds, not by polling) for the processes still in it, such as a fork
        server that ends just after its run."""
        for folder in self.folders:
            for pid in map(int, (folder / "cgroup.procs").read_text().split()):
                try:
                    fd = os.pidfd_open(pid)
                except ProcessLookupError:
                    continue
                try:
                    select.select([fd], [], [], seconds)
                finally:
                    os.close(fd)

    def peak_bytes(self) -> int | None:
        """The most memory it held (v1's max_usage_in_bytes, v2's memory.peak where the kernel has it)."""
        for folder in self.folders:
            for name in ("memory.max_usage_in_bytes", "memory.peak"):
                if (folder / name).exists():
                    return int((folder / name).read_text())
        return None

    def oom_kills(self) -> int:
        """How many of its processes the out-of-memory killer ended."""
        for folder in self.folders:
            for name in ("memory.oom_control", "memory.events"):
                if (folder / name).exists():
                    for line in (folder / name).read_text().splitlines():
                        key, _, value = line.partition(" ")
                        if key == "oom_kill":
                            return int(value)
        return 0


@contextlib.contextmanager
def limited(cpus: float, memory_mb: int) -> Iterator[Cgroup]:
    """A new cgroup below this process's own with ``cpus`` of quota and ``memory_mb`` of memory,
    removed afterwards (its processes must have ended by then)."""
    if os.geteuid() != 0:
        raise NoCgroup("making a cgroup needs root")
    name = f"grader-test-{secrets.token_hex(4)}"
    quota = str(int(cpus * PERIOD_US))
    limit = str(memory_mb * 2**20)
    v2 = [chain[0] for version, chain in cgroup_dirs("cpu", Path("/")) if version == 2]
    v1_cpu = [chain[0] for version, chain in cgroup_dirs("cpu", Path("/")) if version == 1]
    v1_memory = [chain[0] for version, chain in cgroup_dirs("memory", Path("/")) if version == 1]
    made: list[Path] = []
    try:
        if v1_cpu and v1_memory:
            cpu, memory = v1_cpu[0] / name, v1_memory[0] / name
            for folder in (cpu, memory):
                folder.mkdir()
                made.append(folder)
            (cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (cpu / "cpu.cfs_quota_us").write_text(quota)
            (memory / "memory.limit_in_bytes").write_text(limit)
            group = Cgroup((cpu, memory), 1)
        elif v2 and {"cpu", "memory"} <= set((v2[0] / "cgroup.subtree_control").read_text().split()):
            folder = v2[0] / name
            folder.mkdir()
            made.append(folder)
            (folder / "cpu.max").write_text(f"{quota} {PERIOD_US}")
            (folder / "memory.max").write_text(limit)
            group = Cgroup((folder,), 2)
        else:
            raise NoCgroup("no cgroup hierarchy here delegates both the cpu and the memory controller")
    except OSError as exc:
        for folder in reversed(made):
            folder.rmdir()
        raise NoCgroup(f"cannot make a cgroup: {exc}") from exc
    try:
        yield group
    finally:
        group.wait_empty()
        for folder in reversed(made):
            folder.rmdir()
