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


MODE_VARIABLE = "ATTENTION_GRADER_SANDBOX"


def probe() -> Isolation:
    """Try the namespaces in a throwaway child (cheap before numpy and torch are loaded).

    ``ATTENTION_GRADER_SANDBOX=degraded`` in the environment forces the fallback that a
    host without root or namespaces gets (rlimits, a new session and process group, a
    private temporary folder), so that path can be tested on any host.
    """
    mode = os.environ.get(MODE_VARIABLE, "").strip().lower()
    if mode == "degraded":
        return Isolation(namespaces=False, drop_uid=False, notes=(
            f"{MODE_VARIABLE}=degraded forces the fallback: no namespaces and no uid of their "
            "own, only rlimits, a new session and process group and a private temporary folder; "
            "the submission can see the disk and the network with the grader's rights",))
    if mode not in ("", "full"):
        raise ValueError(f"{MODE_VARIABLE}={mode!r}: expected 'degraded' or 'full'")
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
            who = "any user" if root else "the grader's user"
            notes.append("cannot create namespaces (unshare failed): no PID, mount or network "
                         f"isolation; submissions can read what {who} may read (the class "
                         "folder, the reference) and use the network")
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
        try:
            children = list(path.iterdir()) if path.is_dir() else []
        except OSError:  # unreadable without root: such a host has no namespaces anyway
            children = []
        for child in children:
            cover(child)

    for path in hide:
        cover(path.resolve())
    # A folder under one already covered needs no mount of its own.
    return sorted(p for p in covered if not any(q in p.parents for q in covered))


SCRATCH = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


def scratch_dirs() -> list[Path]:
    """The world-writable scratch folders a sandbox gets private, empty copies of."""
    return sorted({p.resolve() for p in SCRATCH if p.is_dir()})


def outermost(paths: list[Path]) -> list[Path]:
    """``paths`` without those inside another of them."""
    paths = sorted(set(paths))
    return [p for p in paths if not any(q in p.parents for q in paths)]


def bridge_dirs(covered: list[Path], keep: list[Path], scratch: list[Path]) -> list[Path]:
    """Folders a sandbox replaces by a fresh tmpfs with only the kept paths under them bound
    back in: every scratch folder, and on the way down to each kept path the outermost
    folder that is hidden around it (a covered path's parent) or that the sandbox's uid
    could not enter (``/root``, mode 700, holding a pyenv interpreter). The tmpfs's own
    folders are enterable, so the interpreter stays reachable after the uid is dropped.
    """
    parents = {c.parent for c in covered}
    scratch_set = set(scratch)

    def bridge(path: Path) -> bool:
        if path in scratch_set or path in parents:
            return True
        try:
            return not path.stat().st_mode & 0o001
        except OSError:
            return False

    found = set(scratch)
    for kept in keep:
        for ancestor in reversed(kept.parents[:-1]):  # from the top, "/" excluded
            if bridge(ancestor):
                found.add(ancestor)
                break
    return outermost(list(found))


def alone_in_namespace(pid: int) -> bool:
    """The PID namespace of sandbox ``pid`` holds only its main process: a cheap look through
    the sandbox's own /proc (which its code, unprivileged, cannot replace), before a scan of
    the whole host. False when it cannot be read (ended, or not a namespaced sandbox)."""
    try:
        return [e for e in os.listdir(f"/proc/{pid}/root/proc") if e.isdigit()] == ["1"]
    except OSError:
        return False
