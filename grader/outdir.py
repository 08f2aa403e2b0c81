"""The output folder of a run, replaced whole: a run writes into a hidden sibling folder,
which takes the place of OUT only once everything is written. A crash, a kill or Ctrl-C
leaves the previous complete results (or none), never a mix of two runs."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from . import linux
from .linux import AT_FDCWD, RENAME_EXCHANGE

# The files that make a folder an earlier run's output, which a new run may replace.
RUN_MARKERS = ("results.json", "grades.csv")


class OutputFolderError(ValueError):
    """OUT cannot take a run's results; the message names the fix."""


def check_out_dir(out_dir: Path) -> None:
    """OUT is new, empty, or an earlier run's output: nothing else is ever deleted."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise OutputFolderError(f"--out {out_dir}: a file is in the way; give a folder (new, or one from an "
                                "earlier run)")
    if any(out_dir.iterdir()) and not any((out_dir / marker).is_file() for marker in RUN_MARKERS):
        raise OutputFolderError(f"--out {out_dir}: holds files that are not a grading run's output, and a run "
                                "replaces its folder whole; give a new or empty folder, or an earlier run's")


def _staging_prefix(out_dir: Path) -> str:
    return f".{out_dir.name}.partial-"


@contextlib.contextmanager
def staged(out_dir: Path) -> Iterator[Path]:
    """A fresh folder beside ``out_dir`` to write the run into. When the block ends normally
    it replaces ``out_dir``; when it raises (Ctrl-C included) it is removed and ``out_dir``
    is as it was."""
    check_out_dir(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(out_dir)
    staging = out_dir.parent / f"{_staging_prefix(out_dir)}{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    # Closed to other users while the run writes it (the results are a secret the sandboxes
    # must not read, and without namespaces or Landlock a root grader's sandboxes are kept out
    # by permissions alone); a folder's usual mode once it is OUT.
    staging.mkdir(mode=0o700)
    # Locked while the run writes it: the next run into OUT tells a killed run's folder (no
    # one holds its lock) from a live one's. Its pid cannot: in a container every run's main
    # process has one of the same few pids, so a killed run's may be another process's now.
    lock = os.open(staging, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        try:
            yield staging
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        _replace(staging, out_dir)
    finally:
        os.close(lock)


def _replace(new: Path, old: Path) -> None:
    if not old.exists():
        os.rename(new, old)
        return
    # Linux swaps the two folders in one step; elsewhere there is a moment with no OUT (the
    # previous results then wait, complete, in the hidden folder).
    swap = getattr(linux.libc, "renameat2", None)
    if swap is not None and swap(AT_FDCWD, os.fsencode(new), AT_FDCWD, os.fsencode(old), RENAME_EXCHANGE) == 0:
        shutil.rmtree(new, ignore_errors=True)  # now the previous run's output
        return
    previous = old.parent / f"{_staging_prefix(old)}previous-{os.getpid()}"
    os.rename(old, previous)
    os.rename(new, old)
    shutil.rmtree(previous, ignore_errors=True)


def _remove_abandoned(out_dir: Path) -> None:
    """Staging folders of runs that were killed: no live run holds their lock."""
    for path in out_dir.parent.glob(f"{_staging_prefix(out_dir)}*"):
        if not _held(path):
            shutil.rmtree(path, ignore_errors=True)


def _held(folder: Path) -> bool:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return True  # gone meanwhile, or not a folder this run may judge: left as it is
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
