"""The ``autograded/<student>/<assignment>/`` folders formgrader reads, as ``nbgrader autograde``
leaves them: each submitted notebook with its outputs cleared and its nbgrader cells checked
against the gradebook (nbgrader's own ``ClearOutput`` and ``OverwriteCells``: the grade cells'
metadata and checksums restored, a locked cell's source put back), and ``timestamp.txt``.

No cell is run here: the scores come from the sandboxed run. Every submitted file is read as
hostile (``read_submitted``: no link followed, size-limited); a notebook that cannot be read is
left out, as its row in the run's reports already says why. Each file is written whole (a
temporary file renamed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..submissions.files import Refused, read_submitted
from .course import Course

TIMESTAMP = "timestamp.txt"


@dataclass(frozen=True)
class AutogradedNotebook:
    """One notebook as formgrader will show it: its nbformat JSON text, and its written
    answers' cells by grade id (``(source, auto_score)``: auto_score 0 when the cell is the
    released one untouched, None when a person must read it; nbgrader's rule)."""

    notebook: str
    text: str
    answers: dict[str, tuple[str, float | None]]


def autograded_path(course: Course, student: str) -> Path:
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(root=str(course.root))
    return Path(coursedir.format_path(coursedir.autograded_directory, student, course.assignment_id))


def build_notebook(course: Course, student: str, notebook: str, written: tuple[str, ...]) -> AutogradedNotebook | None:
    """``notebook`` of ``student``'s submission as autograde leaves it, or None when the file
    is absent, a link, too large or not a notebook. ``written``: the grade ids of its answer cells."""
    import nbformat
    from nbgrader import utils
    from nbgrader.preprocessors import ClearOutput, OverwriteCells

    try:
        data = read_submitted(course.submission(student) / f"{notebook}.ipynb", within=course.submitted)
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except Refused:
        return None
    except Exception:  # noqa: BLE001 - any way a hostile file breaks the parser means "not a notebook"
        return None
    resources: dict[str, Any] = {"nbgrader": {"notebook": notebook, "assignment": course.assignment_id,
                                              "db_url": course.db_url}}
    try:
        nb, _ = ClearOutput().preprocess(nb, resources)
        nb, _ = OverwriteCells().preprocess(nb, resources)
    except Exception:  # noqa: BLE001 - forged nbgrader metadata (a grade id that is a list...) fails anywhere
        return None
    answers: dict[str, tuple[str, float | None]] = {}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in written and grade_id not in answers and utils.is_grade(cell):
            answers[grade_id] = (cell.source, utils.determine_grade(cell)[0])
    return AutogradedNotebook(notebook, nbformat.writes(nb), answers)


def write_autograded(course: Course, student: str, notebooks: list[AutogradedNotebook],
                     names: tuple[str, ...]) -> None:
    """Write ``student``'s autograded folder: these notebooks and the submission's
    ``timestamp.txt``, each replaced whole. A notebook of ``names`` (the assignment's) left by
    an earlier run that is no longer readable is removed: formgrader must never show a stale one."""
    folder = autograded_path(course, student)
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes] = {f"{nb.notebook}.ipynb": nb.text.encode("utf-8") for nb in notebooks}
    try:
        files[TIMESTAMP] = read_submitted(course.submission(student) / TIMESTAMP, within=course.submitted,
                                          limit=4096)
    except Refused:
        (folder / TIMESTAMP).unlink(missing_ok=True)
    for name, data in files.items():
        partial = folder / f".{name}.partial-{os.getpid()}"
        partial.write_bytes(data)
        os.replace(partial, folder / name)
    for name in names:
        if f"{name}.ipynb" not in files:
            (folder / f"{name}.ipynb").unlink(missing_ok=True)
