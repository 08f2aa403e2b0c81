"""A file or a folder replaced whole: written beside its place under a hidden name, then
renamed into it, so a reader (or a run after a crash) finds the old one or the new one, never
half of either. The one way the grader writes a file or a folder in place; it imports nothing
of the stages.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from . import linux
from .linux import AT_FDCWD, RENAME_EXCHANGE


def partial_prefix(path: Path) -> str:
    """The start of the name of anything written to take ``path``'s place (hidden, beside it)."""
    return f".{path.name}.partial-"


@contextlib.contextmanager
def replaced_whole(path: Path, mode: int = 0o666) -> Iterator[BinaryIO]:
    """A file to write ``path``'s new content into: it takes ``path``'s place when the block
    ends, and is removed if the block raises (``path`` is then as it was). ``mode`` is the new
    file's, less the umask, as ``open`` gives. The folder must exist."""
    partial = path.with_name(f"{partial_prefix(path)}{os.getpid()}-{secrets.token_hex(4)}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        with open(fd, "wb") as handle:
            yield handle
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def write_whole(path: Path, data: bytes | str, mode: int = 0o666) -> None:
    """Replace the file ``path`` with ``data`` (text as UTF-8) whole (see ``replaced_whole``)."""
    with replaced_whole(path, mode) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def replace_folder(new: Path, old: Path) -> None:
    """The folder ``new`` put in ``old``'s place, and what ``old`` held removed."""
    if not old.exists():
        os.rename(new, old)
        return
    # Linux swaps the two folders in one step; elsewhere there is a moment with no folder (the
    # previous one then waits, complete, under a hidden name beside it).
    swap = getattr(linux.libc(), "renameat2", None)
    if swap is not None and swap(AT_FDCWD, os.fsencode(new), AT_FDCWD, os.fsencode(old), RENAME_EXCHANGE) == 0:
        shutil.rmtree(new, ignore_errors=True)  # now the previous folder
        return
    previous = old.parent / f"{partial_prefix(old)}previous-{os.getpid()}"
    os.rename(old, previous)
    os.rename(new, old)
    shutil.rmtree(previous, ignore_errors=True)
