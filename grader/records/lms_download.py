"""Where a run's class came from, when it was a Canvas or Moodle download (``grader.lms.intake``
makes it): each student's LMS id, name, lateness and the files graded, as ``results.json`` and
``grades.csv`` record them."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LmsStudent:
    student: str  # the folder name, and the id in every output
    lms_id: str  # Canvas's user id, Moodle's participant id
    name: str  # as the LMS wrote it
    late: bool | None  # None: the download does not say (Moodle's)
    files: tuple[tuple[str, str], ...]  # (notebook, the download's file graded for it)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.lms_id, "name": self.name, "late": self.late, "files": dict(self.files)}


@dataclass(frozen=True)
class LmsInfo:
    """Where a run's class came from, when it was an LMS download."""

    system: str  # "canvas" or "moodle"
    download: str
    students: tuple[LmsStudent, ...]
    notes: tuple[str, ...]

    @functools.cached_property
    def _by_student(self) -> dict[str, LmsStudent]:
        return {s.student: s for s in self.students}

    def student(self, student: str) -> LmsStudent | None:
        return self._by_student.get(student)

    def to_json(self) -> dict[str, Any]:
        return {"system": self.system, "download": self.download, "notes": list(self.notes),
                "students": {s.student: s.to_json() for s in self.students}}
