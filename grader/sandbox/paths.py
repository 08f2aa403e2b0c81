"""Which paths a sandbox sees: the folders an interpreter needs, those hidden from it, the
scratch folders it gets fresh, and the path arithmetic they share with Landlock's rules. Every
rung uses them (``ladder`` says which rung this host gives)."""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path

# The grader's checkout: what its zygotes import from, and what no sandbox may see.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def outermost(paths: list[Path]) -> list[Path]:
    """``paths`` without those inside another of them."""
    paths = sorted(set(paths))
    return [p for p in paths if not any(q in p.parents for q in paths)]


# Top-level folders a Python interpreter needs; every other one (/home, /root, /srv, /opt,
# /mnt, /work, ... where other checkouts of the reference or other classes may live) is
# hidden, except the way to the interpreter itself.
SYSTEM_FOLDERS = frozenset({"usr", "lib", "lib32", "lib64", "libx32", "bin", "sbin", "etc", "dev", "proc",
                            "sys", "tmp", "var", "run"})


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
    # A folder under one already covered needs no mount of its own (a set: thousands of
    # paths are covered under the top-level folders, and this was quadratic in them).
    return sorted(p for p in covered if covered.isdisjoint(p.parents))


SCRATCH = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


def scratch_dirs() -> list[Path]:
    """The world-writable scratch folders a sandbox gets private, empty copies of."""
    return sorted({p.resolve() for p in SCRATCH if p.is_dir()})


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


def default_hidden(class_dir: Path | None, outputs: tuple[Path, ...] = (),
                   private: tuple[Path, ...] = ()) -> list[Path]:
    """Everything a submission must not see: the project (reference, grader, tests,
    the source notebooks, git history), the class, the results, the bundle's ``private``
    folders (its checks, solutions and reference, wherever it lives), home folders, and
    every top-level folder that is not part of the system."""
    # /run/user: the grader's user's sockets (its session bus could start a process outside
    # the sandbox), which a read-only mount does not close and a user namespace reaches.
    hide = [PROJECT_ROOT, Path.home(), Path("/root"), Path("/home"), Path("/run/user")]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        hide.append(Path(runtime))
    hide += [p for p in Path("/").iterdir() if p.name not in SYSTEM_FOLDERS and p.is_dir() and not p.is_symlink()]
    hide += [p for p in (class_dir, *outputs) if p is not None]
    hide += private
    hide.append(Path(__file__).resolve().parents[1])
    # A home folder of "/" (some service accounts) would hide the whole system.
    return hidden_paths([p for p in hide if p.resolve() != Path("/")], needed_paths())
