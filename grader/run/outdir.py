"""The output folder of a run, replaced whole: a run writes into a hidden sibling folder,
which takes the place of OUT only once everything is written. A crash, a kill or Ctrl-C
leaves the previous complete results (or none), never a mix of two runs. One run at a time
writes a folder (``locked``), and every run leaves its record in it (``RECORD``), by which
the next run knows the folder as one it may replace, whatever formats it held."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import shutil
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .. import __version__
from ..atomic import partial_prefix, replace_folder

# Written by every run, whatever its formats: the folder is a grading run's output.
RECORD = ".grader-run.json"
# What runs wrote before the record: a folder holding one of these is an earlier run's too.
EARLIER_RUN_FILES = ("results.json", "grades.csv", "written.csv", "report.html", "junit.xml", "integrity.html",
                     "canvas.csv", "moodle.csv", "changes.csv")
EARLIER_RUN_FOLDERS = ("prairielearn", "gradescope")


class OutputFolderError(ValueError):
    """OUT cannot take a run's results; the message names the fix."""


def check_out_dir(out_dir: Path) -> None:
    """OUT is new, empty, or an earlier run's output: nothing else is ever deleted."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise OutputFolderError(f"--out {out_dir}: a file is in the way; give a folder (new, or one from an "
                                "earlier run)")
    if any(out_dir.iterdir()) and not _an_earlier_run(out_dir):
        raise OutputFolderError(f"--out {out_dir}: holds files that are not a grading run's output, and a run "
                                "replaces its folder whole; give a new or empty folder, or an earlier run's")


def _an_earlier_run(out_dir: Path) -> bool:
    if (out_dir / RECORD).is_file() or any((out_dir / name).is_file() for name in EARLIER_RUN_FILES):
        return True
    if any((out_dir / name).is_dir() for name in EARLIER_RUN_FOLDERS):
        return True
    # A run of feedback pages alone, before the record: feedback/ and nothing else, of our files only.
    entries = list(out_dir.iterdir())
    feedback = out_dir / "feedback"
    return entries == [feedback] and feedback.is_dir() and all(
        p.is_file() and p.suffix in (".md", ".html") for p in feedback.iterdir())


def earlier_formats(out_dir: Path) -> tuple[str, ...]:
    """The formats the run in ``out_dir`` wrote, as its record says (none known: empty)."""
    try:
        formats = json.loads((out_dir / RECORD).read_text(encoding="utf-8"))["formats"]
    except (OSError, ValueError, KeyError, TypeError):
        return ()
    return tuple(name for name in formats if isinstance(name, str)) if isinstance(formats, list) else ()


@contextlib.contextmanager
def locked(out_dir: Path, wait: bool = False, log: Callable[[str], None] = print) -> Iterator[None]:
    """``out_dir`` held by this run alone until the block ends. Another run holding it is an
    ``OutputFolderError`` naming that run, or, with ``wait``, is waited for (said once to
    ``log``). The lock is a file beside ``out_dir`` (the folder itself is swapped as a run
    ends), removed by the run that holds it as it ends."""
    path = out_dir.parent / f".{out_dir.name}.lock"
    said = False
    while True:
        try:
            out_dir.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OutputFolderError(f"--out {out_dir}: cannot write beside it ({exc.strerror}); give a folder "
                                    "you may write") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "it is starting"
                if not wait:
                    raise OutputFolderError(f"--out {out_dir}: another run is writing it ({holder}); wait for it "
                                            "to end, or give --wait") from None
                if not said:
                    log(f"waiting for the run writing {out_dir} to end ({holder})")
                    said = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            # The run before may have removed the file as it ended: the lock is the one at the path.
            if _same_file(fd, path):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, _holder().encode("utf-8", "replace"), 0)
        yield
    finally:
        os.unlink(path)  # before the lock is let go: a run waiting on this file tries again
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        here = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def _holder() -> str:
    """This run, as a run that finds OUT held names it: pid, machine, start, command."""
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    command = f": {shlex.join(sys.argv[1:])}" if sys.argv[1:] else ""
    return f"pid {os.getpid()} on {socket.gethostname()}, started {started}{command}"


@contextlib.contextmanager
def staged(out_dir: Path, formats: Sequence[str] = ()) -> Iterator[Path]:
    """A fresh folder beside ``out_dir`` to write the run into, with the run's ``RECORD``
    (which names its ``formats``). When the block ends normally it replaces ``out_dir``,
    unless it was ``set_aside``; when it raises (Ctrl-C included) it is removed and
    ``out_dir`` is as it was."""
    check_out_dir(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(out_dir)
    staging = out_dir.parent / f"{partial_prefix(out_dir)}{os.getpid()}"
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
        write_record(staging, formats)
        try:
            yield staging
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if staging.exists():
            _open_up(staging)
            replace_folder(staging, out_dir)
    finally:
        os.close(lock)


def write_record(folder: Path, formats: Sequence[str]) -> None:
    """The record that makes ``folder`` a grading run's output: which grader wrote it, which formats."""
    record = {"grader": __version__, "formats": list(formats)}
    (folder / RECORD).write_text(json.dumps(record) + "\n", encoding="utf-8")


def set_aside(staging: Path, out_dir: Path) -> Path:
    """The staged folder kept beside ``out_dir`` under a name of its own, and ``out_dir`` left as
    it is (``staged`` then replaces nothing): where ``out_dir`` changed in a way the run must not
    overwrite."""
    kept = out_dir.parent / f"{out_dir.name}-not-replaced-{time.strftime('%Y%m%d-%H%M%S')}"
    _open_up(staging)
    os.rename(staging, kept)
    return kept


def empty(folder: Path) -> None:
    """Everything in ``folder`` but its record removed, the folder itself kept (with its lock and mode)."""
    for entry in folder.iterdir():
        if entry.name == RECORD:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _open_up(staging: Path) -> None:
    """A folder's usual mode, once the run's results are out of the staging folder."""
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)


def _remove_abandoned(out_dir: Path) -> None:
    """Staging folders of runs that were killed: no live run holds their lock."""
    for path in out_dir.parent.glob(f"{partial_prefix(out_dir)}*"):
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
