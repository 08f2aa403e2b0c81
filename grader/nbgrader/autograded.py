"""The ``autograded/<student>/<assignment>/`` folders formgrader reads, as ``nbgrader autograde``
leaves them: each submitted notebook with its outputs cleared and its nbgrader cells checked
against the gradebook (nbgrader's own ``ClearOutput`` and ``OverwriteCells``: the grade cells'
metadata and checksums restored, a locked cell's source put back), each test cell whose item
lost points carrying why as its error output (as the failed assertion leaves it under
autograde: formgrader and ``generate_feedback`` show it), and ``timestamp.txt``.

No cell is run here: the scores come from the sandboxed run. Every submitted file is read as
hostile (``read_submitted``: no link followed, size-limited); a notebook that cannot be read is
left out, as its row in the run's reports already says why. Only what formgrader shows of it
reaches nbformat (``_trimmed``): a cell's type, id, source, attachments and nbgrader metadata;
so the trusted process spends on a notebook what ``json.loads`` spends on the size limit, not
what nbformat's validation spends on whatever structure was sent. Each file is written whole
(a temporary file renamed).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..records.results import ItemResult
from ..submissions.files import Refused, read_submitted
from ..wire import ERROR_CHARS
from .course import Course

TIMESTAMP = "timestamp.txt"
FAILURE_CHARS = 4 * ERROR_CHARS  # a test cell's output: the item's line and its failed checks, each capped
_CELL_TYPES = ("code", "markdown", "raw")
# nbformat's validation costs per cell and per attachment: a notebook over these is no notebook
# formgrader could show (an honest one has a few hundred cells, a written answer a few pictures).
MAX_CELLS = 10_000
MAX_ATTACHMENTS = 100
# The keys kept of a cell's nbgrader metadata and of the notebook's: those nbgrader and Jupyter read.
_NBGRADER_KEYS = ("grade", "grade_id", "locked", "points", "schema_version", "solution", "task", "checksum",
                  "cell_type")
_NOTEBOOK_KEYS = {"kernelspec": ("name", "display_name", "language"),
                  "language_info": ("name", "version", "file_extension", "mimetype", "nbconvert_exporter",
                                    "pygments_lexer")}


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


def failure_text(item: ItemResult) -> str | None:
    """Why ``item`` lost points, as ``assert_item`` raises it in nbgrader's own test cell (None:
    full marks). Student-chosen text in a check's message is capped like a raised error."""
    if item.earned >= item.points:
        return None
    failed = [f"{check.name}: {check.message}"[:ERROR_CHARS] for check in item.checks if not check.passed]
    if not failed and item.error:
        failed = [item.error[:ERROR_CHARS]]
    return "\n".join([f"{item.name}: {item.earned:g}/{item.points:g} points", *failed])[:FAILURE_CHARS]


def _scalars(value: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """A JSON object's entries of ``keys`` whose values are plain (no nested structure), or {}."""
    if not isinstance(value, dict):
        return {}
    return {k: value[k] for k in keys if isinstance(value.get(k), str | bool | int | float)}


def _text(value: Any) -> str | None:
    """A notebook's string, which may be a list of lines; None for anything else."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value)
    return value if isinstance(value, str) else None


def _trimmed(doc: Any) -> dict[str, Any] | None:
    """The parts of a version-4 notebook that formgrader shows and nbgrader checks, or None
    when ``doc`` is not one. Anything else a student put in (metadata of any size) stays out."""
    if not isinstance(doc, dict) or doc.get("nbformat") != 4 or not isinstance(doc.get("cells"), list) \
            or len(doc["cells"]) > MAX_CELLS:
        return None
    cells = [_cell(cell) for cell in doc["cells"]]
    if None in cells:
        return None
    minor = doc.get("nbformat_minor")
    metadata: dict[str, Any] = doc["metadata"] if isinstance(doc.get("metadata"), dict) else {}
    return {"nbformat": 4, "nbformat_minor": minor if isinstance(minor, int) else 5, "cells": cells,
            "metadata": {key: _scalars(metadata[key], keys) for key, keys in _NOTEBOOK_KEYS.items() if key in metadata}}


def _cell(cell: Any) -> dict[str, Any] | None:
    """A cell's type, id, source, nbgrader metadata and (markdown) attachments; None for no cell."""
    source = _text(cell.get("source", "")) if isinstance(cell, dict) else None
    if source is None or cell.get("cell_type") not in _CELL_TYPES:
        return None
    metadata = cell.get("metadata")
    nbgrader = _scalars(metadata.get("nbgrader") if isinstance(metadata, dict) else None, _NBGRADER_KEYS)
    kept: dict[str, Any] = {"cell_type": cell["cell_type"], "source": source,
                            "metadata": {"nbgrader": nbgrader} if nbgrader else {}}
    if "id" in cell:
        kept["id"] = cell["id"]
    attachments = cell.get("attachments")
    if cell["cell_type"] == "code":
        kept.update(outputs=[], execution_count=None)
    elif isinstance(attachments, dict):  # a picture pasted into a written answer
        pictures = [(name, data) for name, data in attachments.items() if isinstance(data, dict)]
        if len(attachments) > MAX_ATTACHMENTS or any(len(data) > MAX_ATTACHMENTS for _, data in pictures):
            return None
        kept["attachments"] = {name: {mime: text for mime, value in data.items() if (text := _text(value)) is not None}
                               for name, data in pictures}
    return kept


def build_notebook(course: Course, student: str, notebook: str, written: tuple[str, ...],
                   failures: Mapping[str, str] | None = None) -> AutogradedNotebook | None:
    """``notebook`` of ``student``'s submission as autograde leaves it, or None when the file
    is absent, a link, too large or not a notebook. ``written``: the grade ids of its answer
    cells; ``failures``: why each test cell's item (by grade id) lost points."""
    import nbformat
    from nbgrader import utils
    from nbgrader.preprocessors import ClearOutput, OverwriteCells

    try:
        data = read_submitted(course.submission(student) / f"{notebook}.ipynb", within=course.submitted)
        trimmed = _trimmed(json.loads(data.decode("utf-8")))
        if trimmed is None:
            return None
        nb = nbformat.reads(json.dumps(trimmed), as_version=4)  # nbformat's own reading, of what was kept
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
        if cell.cell_type == "code" and utils.is_grade(cell) and grade_id in (failures or {}):
            why = (failures or {})[grade_id]
            cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue=why,
                                                   traceback=[f"AssertionError: {why}"])]
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
