"""Find a class's submissions and read each notebook's code cells, without running any.

Reading happens in the trusted process and yields plain text: the cells, with IPython
syntax (magics, ``!`` shell escapes) already rewritten by IPython's own transformer so a
sandboxed child can run them with plain ``exec``. Anything unreadable becomes a
problem recorded for that student, never an exception for the run.

nbgrader's autograder-test cells are left out, as nbgrader itself replaces them with the
instructor's version: the grader's checks stand in for them, and a function that hangs
then costs only its own item, not the loading of the whole notebook.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class Cell:
    number: int  # 1-based position among the notebook's cells, as Jupyter shows them
    source: str


@dataclass(frozen=True)
class SourceFile:
    """One notebook (or module) of a submission: its cells, or why it could not be read."""

    notebook: str
    path: str | None  # relative to the student's folder; None when not submitted
    cells: tuple[Cell, ...]
    problem: str | None = None


@dataclass(frozen=True)
class Submission:
    student: str
    folder: Path
    files: tuple[SourceFile, ...]

    def file(self, notebook: str) -> SourceFile:
        for source in self.files:
            if source.notebook == notebook:
                return source
        raise KeyError(notebook)


def discover(class_dir: Path) -> list[Path]:
    """The student folders of a class, sorted by id; files and hidden entries are skipped."""
    class_dir = Path(class_dir)
    if not class_dir.is_dir():
        raise FileNotFoundError(f"{class_dir}: not a folder of student submissions")
    folders = [p for p in class_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return sorted(folders, key=lambda p: unicodedata.normalize("NFC", p.name))


def load_submission(folder: Path, assignment: str, notebooks: tuple[str, ...]) -> Submission:
    folder = Path(folder)
    files = tuple(_load_notebook(folder, assignment, nb) for nb in notebooks)
    return Submission(student=folder.name, folder=folder, files=files)


def _load_notebook(folder: Path, assignment: str, notebook: str) -> SourceFile:
    # nbgrader's layout (<student>/<assignment>/<notebook>) or flat; a notebook beats a module.
    for base in (folder / assignment, folder):
        for suffix in (".ipynb", ".py"):
            path = base / (notebook + suffix)
            if path.is_file():
                rel = str(path.relative_to(folder))
                try:
                    cells = read_cells(path)
                except ValueError as exc:
                    return SourceFile(notebook, rel, (), f"{rel} could not be read: {exc}")
                return SourceFile(notebook, rel, cells)
    return SourceFile(notebook, None, (), f"{notebook}.ipynb was not submitted")


def read_cells(path: Path) -> tuple[Cell, ...]:
    """The code cells of a notebook, or a whole ``.py`` module as one cell.

    Raises ``ValueError`` with a student-readable reason for a file that is too large,
    not text, or not a notebook.
    """
    raw = path.read_bytes()
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"the file is {len(raw) // 1024 // 1024} MiB, more than {MAX_FILE_BYTES // 1024 // 1024} MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not a UTF-8 text file (byte {exc.start} is not text)") from exc
    if "\x00" in text:
        raise ValueError("not a text file (it contains NUL bytes)")
    if path.suffix == ".py":
        return (Cell(1, text),)
    return _notebook_cells(text)


def _notebook_cells(text: str) -> tuple[Cell, ...]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a valid notebook (invalid JSON: {exc.msg} at line {exc.lineno})") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise ValueError("not a valid notebook (no list of cells)")
    cells = []
    for number, cell in enumerate(doc["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or is_test_cell(cell):
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise ValueError(f"not a valid notebook (cell {number} has no text source)")
        cells.append(Cell(number, transform_ipython(source)))
    return tuple(cells)


def is_test_cell(cell: dict[str, object]) -> bool:
    """An nbgrader autograder-test cell (``grade`` without ``solution``): the assignment's
    asserts, read-only for the student and never the place of an answer."""
    metadata = cell.get("metadata")
    marks = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return isinstance(marks, dict) and marks.get("grade") is True and not marks.get("solution")


@functools.lru_cache(maxsize=4096)  # a class shares most cells (given code, demos)
def transform_ipython(source: str) -> str:
    """Rewrite magics and shell escapes into ``get_ipython()`` calls, as a kernel would."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)
