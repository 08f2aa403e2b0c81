"""What isolation this host allows, and which paths a sandbox must not see."""

from __future__ import annotations

import ctypes
import os
import site
import sys
from dataclasses import dataclass
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACES = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET


@dataclass(frozen=True)
class Isolation:
    """How sandboxes are isolated on this host; recorded in results.json."""

    namespaces: bool  # new PID, mount, network, IPC and UTS namespaces
    drop_uid: bool  # children run as an unprivileged uid of their own
    notes: tuple[str, ...]  # what is missing and why, for the run's output

    @property
    def degraded(self) -> bool:
        return not (self.namespaces and self.drop_uid)


def probe() -> Isolation:
    """Try the namespaces in a throwaway child (cheap before numpy and torch are loaded)."""
    notes = []
    root = os.geteuid() == 0
    if not root:
        notes.append("not running as root: children keep the grader's uid")
    namespaces = False
    if sys.platform.startswith("linux"):
        pid = os.fork()
        if pid == 0:
            libc = ctypes.CDLL(None, use_errno=True)
            os._exit(0 if libc.unshare(NAMESPACES) == 0 else 1)
        _, status = os.waitpid(pid, 0)
        namespaces = os.waitstatus_to_exitcode(status) == 0
        if not namespaces:
            notes.append("cannot create namespaces (unshare failed): no PID, mount or network isolation; "
                         "the submission can see the disk and the network with the grader's rights")
    else:
        notes.append(f"{sys.platform} has no Linux namespaces: only rlimits and a process group")
    return Isolation(namespaces=namespaces, drop_uid=root, notes=tuple(notes))


def needed_paths() -> list[Path]:
    """Paths the sandboxed interpreter itself needs (its prefix and site-packages)."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    paths.update(Path(p) for p in site.getsitepackages())
    return sorted(p.resolve() for p in paths if p.exists())


def hidden_paths(hide: list[Path], keep: list[Path]) -> list[Path]:
    """The folders to cover so that everything under ``hide`` is invisible except ``keep``.

    A hidden folder that contains a kept path is not covered whole: its other children
    are, recursively, so the kept path stays reachable.
    """
    keep = [p.resolve() for p in keep]
    covered: set[Path] = set()

    def cover(path: Path) -> None:
        if not path.exists() or path.is_symlink():
            return
        inside = [k for k in keep if k == path or path in k.parents]
        if any(k == path for k in inside):
            return
        if not inside:
            covered.add(path)
            return
        if path.is_dir():
            for child in path.iterdir():
                cover(child)

    for path in hide:
        cover(path.resolve())
    # A folder under one already covered needs no mount of its own.
    return sorted(p for p in covered if not any(q in p.parents for q in covered))
