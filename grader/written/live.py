"""The output folder's written.csv while a run goes on: a person may type marks into it
meanwhile. The marks are read with the bytes they were read from, so that the run can tell,
as it writes its outputs, whether written.csv changed since, and read it again."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..assignment.config import Assignment
from ..records.answers import Mark
from .marks import MAX_FILE_BYTES, Marks, WrittenError, read_marks

ATTEMPTS = 5  # reads of a file saved while it is read, before it is taken as unreadable


def file_bytes(path: Path | None) -> bytes | None:
    """What ``path`` holds now (None: no file), up to the marks' limit and one byte more."""
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_FILE_BYTES + 1)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


@dataclass
class LiveMarks:
    """The marks of a run: ``files`` (``--written``, read once) over those ``held`` in ``held_in``
    (nbgrader's gradebook), over those of ``path`` (the output folder's written.csv, read again
    whenever it changes); as ``grader.written.marks.read_marks`` reads them all at once."""

    files: Sequence[Path]
    path: Path | None  # None where a platform holds the marks (``held``): it replaces written.csv
    assignment: Assignment
    students: Collection[str]
    held: Sequence[Mark] = ()
    held_in: Path = Path()
    _given: Marks | None = field(default=None, init=False)
    _read: tuple[Marks, bytes | None] | None = field(default=None, init=False)

    def current(self) -> tuple[Marks, bytes | None]:
        """The marks as written.csv holds them now, and the bytes they were read from; a
        ``WrittenError`` where a row is faulty."""
        if self._read is None or self._read[1] != file_bytes(self.path):
            folder, seen = self._read_folder()
            if self._given is None:  # after written.csv: a --written pipe is read once, the last
                self._given = read_marks(self.files, None, self.assignment, self.students)
            self._read = Marks({**folder.given, **self._given.given}, folder.dropped), seen
        return self._read

    def last(self) -> tuple[Marks, bytes | None]:
        """The marks ``current`` last read, and their bytes."""
        assert self._read is not None, "current() first"
        return self._read

    def changed(self, seen: bytes | None) -> bool:
        """Whether written.csv holds other bytes than ``seen`` now."""
        return file_bytes(self.path) != seen

    def _read_folder(self) -> tuple[Marks, bytes | None]:
        for _ in range(ATTEMPTS):
            before = file_bytes(self.path)
            try:
                marks = read_marks((), self.path, self.assignment, self.students, self.held, self.held_in)
            except WrittenError:
                if file_bytes(self.path) == before:
                    raise
                continue  # saved while it was read: read again
            if file_bytes(self.path) == before:
                return marks, before
        raise WrittenError(f"{self.path}: changed each time it was read; grade again once it is saved")
