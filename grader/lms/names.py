"""The names Canvas and Moodle give the files of a submissions download.

Canvas (one flat zip): ``<name>_<user id>_<attachment id>_<file>``, with ``LATE_`` before the
user id of a late submission, and ``-1``, ``-2`` appended to the file's stem when a student
uploaded a file of the same name again; ``<name>`` is the student's sortable name with
everything but letters and digits removed (``lovelaceada``).

Moodle: ``<Full Name>_<participant id>_assignsubmission_file_/<file>`` (the "download
submissions in folders" option) or ``<Full Name>_<participant id>_assignsubmission_file_<file>``
(flat); Moodle writes the spaces of ``_`` in the full name, so the first ``_`` followed by
digits ends it. The participant id is the one the assignment's grading worksheet calls
"Participant <id>".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CANVAS = "canvas"
MOODLE = "moodle"

_CANVAS = re.compile(r"^(?P<name>[^_/]+?)_(?P<late>LATE_)?(?P<id>\d+)_(?P<attachment>\d+)_(?P<file>[^/]+)$")
_MOODLE = re.compile(r"^(?P<name>[^_/]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_"
                     r"(?:/(?P<inner>.+)|(?P<flat>[^/]+))$")
# A resubmitted file's suffix: Canvas's "-1", a browser's " (1)", an editor's "_1".
_COPY = re.compile(r"^(?P<stem>.+?)(?:-(?P<dash>\d+)|\s*\((?P<paren>\d+)\)|_(?P<under>\d+))?$")


@dataclass(frozen=True)
class LmsFile:
    """One file of a download, as its name says."""

    path: str  # in the download (a zip's member name, or relative to the folder), "/" separated
    lms: str  # CANVAS or MOODLE
    student_id: str  # Canvas's user id, Moodle's participant id
    name: str  # the student's name as the LMS wrote it
    file: str  # what the student uploaded (Canvas's "-1" suffix included; Moodle: its path in the folder)
    late: bool | None  # Canvas says; Moodle's download does not (None)
    order: int  # Canvas's attachment id (later uploads get larger ones); 0 for Moodle

    @property
    def student(self) -> str:
        """The student's folder name and id in the outputs: the LMS's own prefix, unique by its id."""
        return f"{self.name}_{self.student_id}"


def parse_canvas(path: str) -> LmsFile | None:
    """A Canvas download's file (at the top of the download), or None if the name is not one."""
    match = _CANVAS.match(path)
    if match is None:
        return None
    return LmsFile(path, CANVAS, match["id"], match["name"], match["file"], match["late"] is not None,
                   int(match["attachment"]))


def parse_moodle(path: str) -> LmsFile | None:
    """A Moodle download's file (flat, or in the student's folder), or None if the name is not one."""
    match = _MOODLE.match(path)
    if match is None:
        return None
    return LmsFile(path, MOODLE, match["id"], match["name"], match["inner"] or match["flat"], None, 0)


def notebook_of(file: str, notebooks: tuple[str, ...]) -> tuple[str, int] | None:
    """Which of ``notebooks`` an uploaded file is, and its copy number (0 for the name itself,
    ``n`` for ``-n``, `` (n)`` or ``_n``): ``lab_numpy-2.ipynb`` -> ``(lab_numpy, 2)``.
    Case is ignored; only ``.ipynb`` and ``.py`` count."""
    stem, dot, suffix = file.rpartition("/")[2].rpartition(".")
    if not dot or suffix.lower() not in ("ipynb", "py"):
        return None
    for notebook in notebooks:
        if stem.lower() == notebook.lower():
            return notebook, 0
        match = _COPY.match(stem)
        if match is not None and match["stem"].lower() == notebook.lower():
            return notebook, int(match["dash"] or match["paren"] or match["under"] or 0)
    return None
