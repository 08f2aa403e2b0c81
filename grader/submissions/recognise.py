"""Which notebook of the assignment a file is, by what it holds when its name does not say.

A student who uploads ``Attention_Numpy_final.ipynb`` has submitted the notebook all the same.
What tells the notebooks apart comes from the bundle alone (``notebook_marks``): the functions
and classes its YAML grades in each notebook, and the cells of each source notebook (nbgrader's
``grade_id`` and the cell's id), which the release carries into every copy a student saves.
A mark that two notebooks share tells nothing and is dropped.

A candidate file is read as text, within the submission's size limit, and never parsed nor
run: its top-level ``def``/``class`` names, its cells' ids and the release's stubs still in it
are found by patterns, a pass each, so that what it costs follows its size and nothing else.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .files import Refused, read_submitted


@dataclass(frozen=True)
class NotebookMarks:
    """What marks a file as one notebook of the assignment, and as no other."""

    notebook: str
    names: frozenset[str]  # the functions and classes graded in it (the YAML's items)
    cells: frozenset[str]  # its source notebook's cells: nbgrader's grade_ids and the cells' ids


@dataclass(frozen=True)
class Recognised:
    """A notebook's file found by its content, or why none was taken (``path`` None)."""

    path: Path | None
    note: str  # which file was taken and why; or, with no path, the problem


@functools.cache
def notebook_marks(root: Path, items: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[NotebookMarks, ...]:
    """Each notebook's marks: ``items`` pairs a notebook with the names its YAML grades in it;
    its cells are those of ``root/<notebook>.ipynb``, the source notebook, where there is one."""
    cells = {notebook: _source_cells(root / f"{notebook}.ipynb") for notebook, _ in items}
    shared = Counter(mark for marks in cells.values() for mark in marks)
    return tuple(NotebookMarks(notebook, frozenset(names),
                               frozenset(mark for mark in cells[notebook] if shared[mark] == 1))
                 for notebook, names in items)


def _source_cells(path: Path) -> set[str]:
    """The ids of a source notebook's cells (the instructor's file, read as it is)."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return set()
    found = set()
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict):
            continue
        nbgrader = (cell.get("metadata") or {}).get("nbgrader") or {}
        for mark in (cell.get("id"), nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None):
            if isinstance(mark, str) and mark:
                found.add(mark)
    return found


# A top-level definition: at the start of a line of a module, or of a line of a notebook's
# JSON (a source list's string, or after an escaped newline within one).
_DEFINED = re.compile(r'(?:^|"|\\n)(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)', re.MULTILINE)
_CELL_ID = re.compile(r'"(?:id|grade_id)"[ \t]*:[ \t]*"([^"\\]{1,200})"')
# The release's stub for an exercise, in a module or in a notebook's JSON, where its next
# line may be the next string of the cell's source list.
_STUB = re.compile(r'#[ \t]*YOUR CODE HERE[ \t]*(?:\r?\n|(?:\\r)?\\n(?:"[ \t]*,\s*")?)[ \t]*'
                   r'raise NotImplementedError\b')


MAX_READ = 16  # files of a student's read to choose among them: an upload of many costs no more
_MAX_FOUND = 10_000  # definitions, stubs and cell ids of a file looked at (a notebook has tens)


@dataclass(frozen=True)
class _Content:
    path: Path
    names: frozenset[str]  # defined at the top level
    stubbed: frozenset[str]  # of those, the ones whose last definition still holds the release's stub
    cells: frozenset[str]
    digest: str  # of its bytes: two copies of one file are one answer, not two

    def evidence(self, marks: NotebookMarks) -> tuple[int, int]:
        """How many of the notebook's names and cells this file holds."""
        return len(self.names & marks.names), len(self.cells & marks.cells)

    def answered(self, marks: NotebookMarks) -> int:
        """The notebook's exercises this file answers: defined, and not as released."""
        return len((self.names - self.stubbed) & marks.names)

    def stubs(self, marks: NotebookMarks) -> int:
        return len(self.stubbed & marks.names)


def _read(path: Path, within: Path) -> _Content | None:
    try:
        raw = read_submitted(path, within)
    except (Refused, OSError):
        return None
    text = raw.decode("utf-8", errors="replace")
    # Positions only, and so many at most: a file of nothing but definitions costs no more.
    stubs = [match.start() for match in itertools.islice(_STUB.finditer(text), _MAX_FOUND)]
    starts = [(match.start(), match.end(), match[1])
              for match in itertools.islice(_DEFINED.finditer(text), _MAX_FOUND)]
    stubbed: dict[str, bool] = {}
    for index, (_, body, name) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(text)
        # The last definition of a name is the one that counts, as when the cells run.
        stubbed[name] = bisect.bisect_left(stubs, end) > bisect.bisect_left(stubs, body)
    cells = frozenset(match[1] for match in itertools.islice(_CELL_ID.finditer(text), _MAX_FOUND)) \
        if path.suffix.lower() == ".ipynb" else frozenset()
    return _Content(path, frozenset(stubbed), frozenset(n for n, stub in stubbed.items() if stub), cells,
                    hashlib.sha256(raw).hexdigest())


def recognise(folder: Path, files: list[Path], named: dict[str, Path],
              marks: tuple[NotebookMarks, ...]) -> dict[str, Recognised]:
    """The files of ``folder`` (the student's; ``files`` in it, none taken by its name) that
    hold the notebooks: those ``named`` has no file for, and those whose file there is the
    release untouched beside a file that answers some of it. A file is a candidate for the
    notebook it holds the most marks of; among several, the one with the most exercises
    answered is taken, and a tie between different files is a problem, not a guess."""
    shown = sorted(files, key=lambda p: (len(p.relative_to(folder).parts), str(p)))
    contents = [c for path in shown[:MAX_READ] if (c := _read(path, folder)) is not None]
    best: dict[str, list[_Content]] = {}
    for content in contents:
        strength = {m.notebook: sum(content.evidence(m)) for m in marks}
        top = max(strength.values(), default=0)
        for notebook, value in strength.items():
            if top and value == top:
                best.setdefault(notebook, []).append(content)
    found: dict[str, Recognised] = {}
    for mark in marks:
        # A file that holds two notebooks as much as each other is taken for the first only.
        taken = {chosen.path for chosen in found.values()}
        candidates = [c for c in best.get(mark.notebook, []) if c.path not in taken]
        if not candidates:
            continue
        incumbent = _read(named[mark.notebook], folder) if mark.notebook in named else None
        if mark.notebook in named and incumbent is None:
            continue  # the file of its name cannot be read: the grading says why
        chosen = _choose(folder, mark, candidates, incumbent)
        if chosen is not None:
            found[mark.notebook] = chosen
    return found


def _choose(folder: Path, marks: NotebookMarks, candidates: list[_Content],
            incumbent: _Content | None) -> Recognised | None:
    """The candidate taken for the notebook; None to keep ``incumbent``, the file of its name,
    which only the release untouched (no exercise answered) beside a file of work gives way."""
    ranked = sorted(candidates, key=lambda c: (-c.answered(marks), c.stubs(marks), str(c.path)))
    first = ranked[0]
    if incumbent is not None and (incumbent.answered(marks) > 0 or first.answered(marks) <= 0):
        return None
    rel = lambda c: c.path.relative_to(folder).as_posix()  # noqa: E731
    rank = lambda c: (c.answered(marks), c.stubs(marks))  # noqa: E731
    tied = [c for c in ranked if rank(c) == rank(first)]
    if any(c.digest != first.digest for c in tied):
        names = ", ".join(rel(c) for c in tied[:3]) + (f" and {len(tied) - 3} more" if len(tied) > 3 else "")
        return Recognised(None, f"{marks.notebook}.ipynb was not submitted under its name, and {len(tied)} files "
                                f"hold it as much as each other ({names}): not graded; rename the one to grade "
                                f"{marks.notebook}{first.path.suffix.lower()}")
    defined, cells = first.evidence(marks)
    held = f"{defined} of the {len(marks.names)} functions and classes graded there"
    if cells:
        held += f" and {cells} of the release's cells"
    note = (f"graded {rel(first)} for {marks.notebook}: its name is not {marks.notebook}{first.path.suffix.lower()}, "
            f"but it holds {held}")
    passed = [f"{rel(c)} ({'the same file' if c.digest == first.digest else 'fewer exercises answered'})"
              for c in ranked[1:4]]
    if len(ranked) > 4:
        passed.append(f"and {len(ranked) - 4} more")
    if incumbent is not None:
        count = incumbent.stubs(marks)
        stubs = f"{count} exercise{'s' if count != 1 else ''}"
        passed.insert(0, f"{rel(incumbent)} (its name, but no exercise answered: {stubs} still raising "
                         "NotImplementedError there)")
    return Recognised(first.path, note + (f"; passed over {', '.join(passed)}" if passed else ""))
