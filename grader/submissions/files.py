"""A submitted file read as hostile: the one way every intake reads a student's bytes.

A student's file may be a link (to the reference, to a hidden check, to a classmate's file,
to ``/proc/kmsg``), a FIFO, a device or a sparse file of gigabytes, and any folder on the way
to it may be a link too. So the way down is walked from a folder the instructor gave (the
class folder, followed as given) one component at a time, never following a link; the file
is looked at (``lstat``) before it is opened, so a FIFO or a device is never opened; its size
comes from ``fstat`` on the open descriptor, and no more than the limit is ever read.
Whatever is refused is a ``Refused`` whose message completes "<the file's name> ...", for
the student's feedback.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_FILE_BYTES = 20 * 1024 * 1024

# Not every system has these (check.py runs on the student's own machine, Windows too).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the lstat must not hang the open
_BINARY = getattr(os, "O_BINARY", 0)


class Refused(ValueError):
    """A submitted file not read, and why, as the end of a sentence that begins with its name."""


class TooLarge(Refused):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"is {size // 1024 // 1024} MiB, more than {limit // 1024 // 1024} MiB")
        self.size = size


def read_submitted(path: Path, within: Path | None = None, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path``, a plain file of at most ``limit`` bytes, or ``Refused``.

    ``within``: a folder above ``path`` that is trusted as given (the class folder); every
    component below it is refused when it is a link. Without it only ``path`` itself is."""
    path = Path(path)
    if within is None:
        parts: tuple[str, ...] = (path.name,)
        top = path.parent
    else:
        top = Path(within)
        parts = path.relative_to(top).parts
    if not parts:
        raise Refused("is not a file")
    if within is None and not hasattr(os, "O_DIRECTORY"):  # no descriptor-relative calls here
        return _read_plain(str(path), None, limit)
    try:
        folder = os.open(top, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError as exc:
        raise Refused(f"cannot be read ({exc.strerror})") from None
    try:
        for part in parts[:-1]:
            try:
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=folder)
            except OSError as exc:
                if _is_link(part, folder):
                    raise Refused(f"is in {part}/, a symbolic link: not read; submit the folder itself") from None
                raise Refused(f"is in {part}/, which cannot be opened ({exc.strerror})") from None
            os.close(folder)
            folder = inner
        return _read_plain(parts[-1], folder, limit)
    finally:
        os.close(folder)


def _is_link(name: str, folder: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _read_plain(name: str, folder: int | None, limit: int) -> bytes:
    try:
        # Looked at before it is opened: opening a FIFO or a device may block or act.
        seen = os.stat(name, dir_fd=folder, follow_symlinks=False) if folder is not None else os.lstat(name)
    except OSError as exc:
        raise Refused(f"cannot be read ({exc.strerror})") from None
    kind = _kind(seen.st_mode)
    if kind:
        raise Refused(kind)
    if seen.st_size > limit:
        raise TooLarge(seen.st_size, limit)
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY, dir_fd=folder)
    except OSError as exc:
        raise Refused(f"cannot be read ({exc.strerror})") from None
    with open(fd, "rb", buffering=0, closefd=True) as handle:
        opened = os.fstat(fd)  # what counts is what was opened, whatever the name is now
        kind = _kind(opened.st_mode)
        if kind:
            raise Refused(kind)
        if opened.st_size > limit:
            raise TooLarge(opened.st_size, limit)
        chunks, left = [], limit + 1
        while left > 0 and (chunk := handle.read(min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    data = b"".join(chunks)
    if len(data) > limit:  # it grew after the fstat
        raise TooLarge(len(data), limit)
    return data


def _kind(mode: int) -> str:
    """Why a file of this mode is not read, or "" for a plain file."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISLNK(mode):
        return "is a symbolic link: not read; submit the file itself"
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    return "is not a plain file (a pipe, device or socket): not read; submit the file itself"


def copy_submitted(source: Path, target: Path, depth: int = 3) -> list[str]:
    """Copy a student's folder ``source`` (trusted as given) into ``target`` (new) as the
    grader will read it: plain files read by the rules above; a link copied as a link, never
    followed, and a FIFO as a FIFO, so that the grading names them in the student's feedback;
    a file over the limit as a sparse file of its size, for the same reason. Folders below
    ``depth`` levels, devices and sockets are left out; the names left out, with why."""
    left: list[str] = []
    folder = os.open(source, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        _copy_folder(folder, Path(target), "", depth, left)
    finally:
        os.close(folder)
    return left


def _copy_folder(folder: int, target: Path, shown: str, depth: int, left: list[str]) -> None:
    target.mkdir(parents=True)
    with os.scandir(folder) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        here = target / name
        try:
            mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(name, dir_fd=folder), here)
            elif stat.S_ISFIFO(mode):
                os.mkfifo(here, 0o600)
            elif stat.S_ISDIR(mode):
                if depth <= 0:
                    left.append(f"{shown}{name}/ (too deep)")
                    continue
                inner = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=folder)
                try:
                    _copy_folder(inner, here, f"{shown}{name}/", depth - 1, left)
                finally:
                    os.close(inner)
            else:
                try:
                    data = _read_plain(name, folder, MAX_FILE_BYTES)
                except TooLarge as exc:
                    with open(here, "wb") as sparse:
                        sparse.truncate(exc.size)
                    continue
                here.write_bytes(data)
        except Refused as exc:
            left.append(f"{shown}{name} ({exc})")
        except OSError as exc:
            left.append(f"{shown}{name} ({exc.strerror})")
