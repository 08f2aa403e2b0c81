"""Find a class's submissions and read each notebook's code cells, without running any.

Reading happens in the trusted process and yields plain text: the cells as the student
wrote them (their IPython syntax is rewritten where they run: ``grader.submissions.ipython``).
Every file is read as hostile (``grader.submissions.files``): a link, a FIFO or a file too
large is a sentence in that student's feedback. Anything unreadable becomes a problem
recorded for that student, never an exception for the run.

nbgrader's autograder-test cells are left out, as nbgrader itself replaces them with the
instructor's version: the grader's checks stand in for them, and a function that hangs
then costs only its own item, not the loading of the whole notebook.
"""

from __future__ import annotations

import json
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .answer_cells import Extracted, module_answers, notebook_answers
from .files import Refused, TooLarge, read_submitted
from .modulecells import module_cells
from .recognise import MAX_READ, NotebookMarks, Recognised, recognise


@dataclass(frozen=True)
class Cell:
    # A notebook's: 1-based among its code cells (markdown cells are not counted: the student
    # sees no number on them), test cells included though they are not run. A module's
    # (``unit`` "line"): the line its statement (or ``# %%`` cell) begins on.
    number: int
    source: str
    unit: str = "code cell"
    first: str = ""  # the line the label shows, when it is not the source's first

    @property
    def label(self) -> str:
        """The cell as the student finds it: its number and its first line."""
        return cell_label(self.number, self.first or self.source, self.unit)


def cell_label(number: int, source: str, unit: str = "code cell") -> str:
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    if len(first) > 60:
        first = first[:57] + "..."
    return f"{unit} {number}" + (f" ({first})" if first else "")


@dataclass(frozen=True)
class SourceFile:
    """One notebook (or module) of a submission: its cells, or why it could not be read."""

    notebook: str
    path: str | None  # relative to the student's folder; None when not submitted
    cells: tuple[Cell, ...]
    problem: str | None = None
    note: str | None = None  # which file was taken, when it is not the expected one
    answers: tuple[Extracted, ...] = ()  # its written answers, as read (``grader.submissions.answer_cells``)


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


@dataclass(frozen=True)
class Roster:
    """A class folder's students as found: their folders, sorted by id, and what was skipped."""

    students: tuple[Path, ...]
    skipped: tuple[str, ...]  # names of entries that are not student folders, with why
    note: str = ""  # what the instructor should know of how the folder was read


class ClassFolderError(ValueError):
    """The class folder cannot be graded as given; the message names the fix."""


def discover(class_dir: Path, assignment: str = "", notebooks: tuple[str, ...] = ()) -> Roster:
    """The student folders of a class: every folder in it, whatever its name (an id is data,
    never layout). Files and folders whose names begin with "." are skipped (and listed). A
    link to a folder is a student, whose row will say it was not read (never its target's work
    graded under its name). A class folder that holds no folder is an error; so is one that
    holds one of the assignment's ``notebooks`` itself (a single student's folder)."""
    class_dir = Path(class_dir)
    if not class_dir.is_dir():
        kind = "a file" if class_dir.exists() else "not found"
        raise ClassFolderError(f"{class_dir}: {kind}; give the folder that holds one folder per student")
    students, skipped = [], []
    for entry in class_dir.iterdir():
        if entry.name.startswith("."):
            skipped.append(f"{entry.name} (its name begins with '.')")
        elif not entry.is_dir():
            kind = "a link" if entry.is_symlink() else "a file"
            skipped.append(f"{entry.name} ({kind}, not a student's folder)")
        else:
            students.append(entry)
    if notebooks:
        # A notebook lying in the class folder itself is a student's file, not a student. A
        # folder in it is a student whatever its name: one named like the assignment (as
        # nbgrader's layout names a student's inner folder) is a student with that id.
        own = [found.path for nb in notebooks if (found := find_notebook(class_dir, assignment, nb, depth=0))]
        if own:
            raise ClassFolderError(
                f"{class_dir} looks like a single student's folder (it holds {own[0].relative_to(class_dir)}); "
                "give the folder that holds one folder per student")
    if not students:
        raise ClassFolderError(f"{class_dir}: no student folders in it; give the folder that holds one "
                               "folder per student (named by the student's id)")
    key = lambda p: unicodedata.normalize("NFC", p.name)  # noqa: E731
    note = ""
    if assignment and [entry.name for entry in students] == [assignment]:
        # Ids are data, so it is graded; but it is as likely one student's folder in nbgrader's layout.
        note = (f"{class_dir} holds one student, {assignment}, named as the assignment: graded as a student; "
                "if it is one student's folder, give the folder that holds one folder per student")
    return Roster(tuple(sorted(students, key=key)), tuple(sorted(skipped)), note)


def student_id(folder: Path) -> str:
    """The id a student's results go by: the folder's name. A name that is not UTF-8 (bytes
    from another system) gets U+FFFD where they were: the id must be writable to the UTF-8
    grades.csv and results.json."""
    return os.fsencode(folder.name).decode("utf-8", errors="replace")


def load_submission(folder: Path, assignment: str, notebooks: tuple[str, ...],
                    written: dict[str, tuple[str, ...]] | None = None,
                    marks: tuple[NotebookMarks, ...] = ()) -> Submission:
    """A student's submission; ``folder`` lies in the class folder, which is trusted as given.
    ``written``: a notebook's written answers' ids, read from it as well. ``marks``: what tells
    the notebooks apart by content (``grader.submissions.recognise``), for a notebook whose
    file is found by no name the rule allows, or is the release untouched beside the work."""
    folder = Path(folder)
    if _is_link(folder):
        why = f"the student's folder {folder.name} is a symbolic link: not read; submit the files themselves"
        return Submission(student_id(folder), folder, tuple(SourceFile(nb, None, (), why) for nb in notebooks))
    by_name = {nb: find_notebook(folder, assignment, nb) for nb in notebooks}
    found: dict[str, Found | Recognised | None] = dict(by_name)
    if marks:
        named = {nb: file.path for nb, file in by_name.items() if file is not None}
        others = [p for p in _files(folder, 2) if p.suffix.lower() in (".ipynb", ".py") and p not in named.values()]
        found.update(recognise(folder, others, named, marks) if others else {})
    files = tuple(_load_notebook(folder, nb, found[nb], (written or {}).get(nb, ())) for nb in notebooks)
    if files and all(f.path is None for f in files):  # nothing found: say what was there instead
        held = _holds(folder)
        files = tuple(replace(f, problem=f"{f.problem} ({held})") if found[f.notebook] is None else f for f in files)
    return Submission(student=student_id(folder), folder=folder, files=files)


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


# Upload names that still count as the notebook: another copy's " (1)", "-2", " copy".
_COPY_SUFFIX = re.compile(r"(?:\s*\(\d+\)|-\d+|_\d+|\s*-?\s*copy(?:\s*\d+)?)?", re.IGNORECASE)
_SKIPPED_FOLDERS = {"__macosx", "__pycache__"}


@dataclass(frozen=True)
class Found:
    path: Path
    note: str | None  # why it is not the expected name or place; None when it is


def find_notebook(folder: Path, assignment: str, notebook: str, depth: int = 2) -> Found | None:
    """The file of ``notebook`` in a student's folder, by the documented rule:

    * where: the folder itself, nbgrader's ``<assignment>/`` inside it, or any folder at most
      ``depth`` levels down (one extra level around either layout is a common upload);
      folders whose names begin with "." (``.ipynb_checkpoints``) are never searched;
    * what: ``<notebook>.ipynb``, else ``<notebook>.py``; then the same with another case or a
      copy's suffix (``lab_numpy (1).ipynb``, ``-2``, `` copy``);
    * which, among several: the one with the fewest exercises still the release's stub
      (``# YOUR CODE HERE`` over ``raise NotImplementedError()``), so that the student's work
      beats an untouched copy of the release; then the exact name, the expected place, the
      shallower, a notebook before a module, the newest. The note says what was taken when it
      is not the expected file, and which files were passed over and why.
    """
    expected = (folder / assignment, folder)
    found = []
    for path in _files(folder, depth):
        stem, suffix = path.stem, path.suffix.lower()
        if suffix not in (".ipynb", ".py"):
            continue
        exact = stem == notebook
        if not exact:
            if not stem.lower().startswith(notebook.lower()):
                continue
            if not _COPY_SUFFIX.fullmatch(stem[len(notebook):]):
                continue
        try:
            seen = os.lstat(path)
        except OSError:
            continue
        found.append((path, exact, suffix, seen.st_mtime, stat.S_ISREG(seen.st_mode)))
    if not found:
        return None
    # A plain file beats a link or a FIFO of the same name; these are taken only to be refused.
    if any(plain for *_, plain in found):
        found = [f for f in found if f[4]]
    # A single file is taken as it is, without reading it here; past a few, reading them all
    # would let an upload of many large copies cost the trusted process what it likes.
    several = 1 < len(found) <= MAX_READ
    candidates = sorted(
        ((stubs_left(path, folder) if several else 0, not exact, path.parent not in expected,
          len(path.relative_to(folder).parts), suffix != ".ipynb", -mtime, str(path)), path)
        for path, exact, suffix, mtime, _ in found)
    rank, best = candidates[0]
    ties = sum(1 for other, _ in candidates if other[:5] == rank[:5])
    reasons = []
    if rank[1]:
        reasons.append(f"its name is not {notebook}{best.suffix.lower()}")  # the name it should have
    if rank[2]:
        reasons.append(f"it is not in the student's folder or its {assignment}/ folder")
    if ties > 1:
        reasons.append(f"the newest of {ties} such files")
    rel = best.relative_to(folder)
    passed = [f"{path.relative_to(folder)} ({_why_not(other, rank)})" for other, path in candidates[1:4]]
    if len(candidates) > 4:
        passed.append(f"and {len(candidates) - 4} more")
    if passed:
        reasons.append(f"passed over {', '.join(passed)}")
    return Found(best, f"graded {rel}: {'; '.join(reasons)}" if reasons else None)


# A released exercise still unanswered: nbgrader's stub for a solution region.
_STUB = re.compile(r"#[ \t]*YOUR CODE HERE[ \t]*\r?\n[ \t]*raise NotImplementedError\b")


def stubs_left(path: Path, within: Path | None = None) -> int:
    """How many exercises of ``path`` still hold the release's stub (0 for a file that cannot
    be read: it is then chosen by the other rules, and reported when it is graded)."""
    try:
        text = read_submitted(path, within).decode("utf-8-sig")
        if path.suffix.lower() != ".ipynb":
            return len(_STUB.findall(text))
        cells = json.loads(text).get("cells", [])
        sources = ("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                   for c in cells if c.get("cell_type") == "code")
        return sum(len(_STUB.findall(source)) for source in sources)
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return 0


def _why_not(other: tuple[object, ...], best: tuple[object, ...]) -> str:
    """Why a candidate lost to the graded one: the first rule of the ranking that set it back."""
    if other[0] != best[0]:
        return (f"{other[0]} exercise{'s' if other[0] != 1 else ''} still raising NotImplementedError there, "
                f"{best[0]} in the one graded")
    why = ["not the expected name", "not in the expected place", "further down in folders",
           "a .py file: a notebook comes first", "older"]
    for index, text in enumerate(why, start=1):
        if other[index] != best[index]:
            return text
    return "as old; taken by name"


def _holds(folder: Path, shown: int = 3) -> str:
    """What a student's folder holds, for a submission where no notebook was found."""
    names = sorted(str(p.relative_to(folder)) for p in _files(folder, 2))
    if not names:
        return "the folder is empty"
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"the folder holds {', '.join(names[:shown])}{more}"


def _files(folder: Path, depth: int) -> list[Path]:
    """Every entry but folders (links and FIFOs too: the reading refuses them, in words), down
    to ``depth`` folders; a link is never followed."""
    found: list[Path] = []
    try:
        with os.scandir(folder) as scan:
            entries = list(scan)
    except OSError:
        return found
    for entry in entries:
        if entry.name.startswith(".") or entry.name.lower() in _SKIPPED_FOLDERS:
            continue
        path = folder / entry.name
        try:
            is_folder = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if not is_folder:
            found.append(path)
        elif depth > 0:
            found.extend(_files(path, depth - 1))
    return found


def _load_notebook(folder: Path, notebook: str, found: Found | Recognised | None,
                   questions: tuple[str, ...] = ()) -> SourceFile:
    if found is None or found.path is None:
        return SourceFile(notebook, None, (), found.note if found else f"{notebook}.ipynb was not submitted")
    rel = str(found.path.relative_to(folder))
    try:
        cells, answers = read_source(found.path, folder.parent, questions)
    except Refused as exc:  # a link, a FIFO: the reason follows the file's name
        return SourceFile(notebook, rel, (), f"{rel} {exc}", found.note)
    except ValueError as exc:
        return SourceFile(notebook, rel, (), f"{rel} could not be read: {exc}", found.note)
    if not cells:  # one line for the notebook, not a "not defined" for each check
        code = "code cells" if rel.endswith(".ipynb") else "code"
        return SourceFile(notebook, rel, (), f"{rel} is empty: it holds no {code}, so nothing could be graded; "
                          "save it with the work in it and submit it again", found.note, answers)
    return SourceFile(notebook, rel, cells, None, found.note, answers)


def read_cells(path: Path, within: Path | None = None) -> tuple[Cell, ...]:
    """The code cells of a notebook, or of a ``.py`` module: ``read_source``'s, without answers."""
    return read_source(path, within)[0]


def read_source(path: Path, within: Path | None = None,
                questions: tuple[str, ...] = ()) -> tuple[tuple[Cell, ...], tuple[Extracted, ...]]:
    """The code cells of a notebook, or of a ``.py`` module (``module_cells``), as written, and
    the answers to the written ``questions`` in it (``grader.submissions.answer_cells``).

    ``within``: the folder below which no link is followed (``read_submitted``). Raises
    ``Refused`` for a file not read (a link, not a plain file: the reason follows its name)
    and ``ValueError`` with a student-readable reason for a file that is too large, empty,
    not text, or not a notebook.
    """
    try:
        raw = read_submitted(path, within)
    except TooLarge as exc:
        raise ValueError(_too_large(exc, path)) from None
    if not raw.strip():
        raise ValueError("the file is empty (0 bytes), as an upload that failed leaves it; upload it again"
                         if not raw else "the file is empty (only blank space); upload the saved file again")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not a UTF-8 text file (byte {exc.start} is not text)") from exc
    if "\x00" in text:
        raise ValueError("not a text file (it contains NUL bytes)")
    if path.suffix.lower() == ".py":
        cells = tuple(Cell(number, source, "line", first) for number, source, first in module_cells(text))
        return cells, module_answers(text, questions) if questions else ()
    doc = _notebook(text)
    return _notebook_cells(doc), notebook_answers(doc["cells"], questions) if questions else ()


def _too_large(exc: TooLarge, path: Path) -> str:
    hint = "; clear the outputs (Kernel > Restart & Clear Output) and save it again" \
        if path.suffix.lower() == ".ipynb" else ""
    return f"the file {exc}{hint}"


def _notebook(text: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a valid notebook (invalid JSON: {exc.msg} at line {exc.lineno})") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise ValueError("not a valid notebook (no list of cells)")
    return doc


def _notebook_cells(doc: dict[str, Any]) -> tuple[Cell, ...]:
    cells = []
    number = 0
    for cell in doc["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        if is_test_cell(cell):
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise ValueError(f"not a valid notebook (cell {number} has no text source)")
        cells.append(Cell(number, source))
    return tuple(cells)


def is_test_cell(cell: dict[str, object]) -> bool:
    """An nbgrader autograder-test cell (``grade`` without ``solution``): the assignment's
    asserts, read-only for the student and never the place of an answer."""
    metadata = cell.get("metadata")
    marks = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return isinstance(marks, dict) and marks.get("grade") is True and not marks.get("solution")

