"""Marks read from ``written.csv`` files, validated whole before anything is graded or written.

Two sources, one format (``WRITTEN_CSV_COLUMNS``; other columns are ignored): the files given
with ``grade --written`` (a person's grading, or the grading page's downloads), and the
``written.csv`` of the run the output folder holds, which carries the marks from one run to the
next. A row without points is no mark (an answer not graded yet). A row with points must name a
student of the class and a question of the bundle, give points from 0 to the question's, name
only the question's rubric parts, and hold the digest of the answer it was given for: any fault
is one line naming the file and the row, and the run stops before it starts. The previous run's
file differs in one way: a mark of a student or question no longer graded is dropped, and said.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..assignment.config import Assignment
from ..records.answers import WRITTEN_CSV_COLUMNS, Mark
from ..render.csv_cells import cell_text
from ..render.words import counted

MAX_FILE_BYTES = 64 * 1024 * 1024  # a class of thousands' marks take a few MB


class WrittenError(ValueError):
    """A marks file cannot be merged; the message names the file and the row."""


@dataclass(frozen=True)
class Given:
    """A mark and where it was read: a file and its row (the header is row 1, as a spreadsheet shows)."""

    mark: Mark
    path: Path
    row: int
    carried: bool  # from the previous run's written.csv: a stale digest re-flags, it is no error

    @property
    def where(self) -> str:
        return f"{self.path}: row {self.row}"


@dataclass(frozen=True)
class Marks:
    """Every mark of a run, by (student, question): the given files' over the previous run's."""

    given: dict[tuple[str, str], Given]
    dropped: tuple[str, ...] = ()  # the previous run's marks of students or questions no longer graded

    def summary_lines(self) -> list[str]:
        if not self.dropped:
            return []
        return [f"written.csv: {counted(len(self.dropped), 'mark')} of the previous run dropped (the student or "
                f"question is no longer graded): {', '.join(self.dropped)}"]


def read_marks(files: Sequence[Path], previous: Path | None, assignment: Assignment,
               students: Collection[str], held: Sequence[Mark] = (), held_in: Path = Path()) -> Marks:
    """The marks of ``files`` (``--written``) over those ``held`` in ``held_in`` by the platform
    graded for (nbgrader's gradebook, which formgrader writes), over those of ``previous`` (the
    output folder's written.csv, if any), checked against ``assignment`` and the class's ``students``.
    A held mark is carried like the previous run's: one for an earlier text awaits a grader again."""
    given: dict[tuple[str, str], Given] = {}
    dropped: list[str] = []
    previous_marks = _read(previous, assignment, students, carried=True) if previous and previous.is_file() else []
    for found in [*previous_marks, *(Given(mark, held_in, 0, carried=True) for mark in held)]:
        if found.mark.student not in students or found.mark.question not in {q.id for q in assignment.written}:
            dropped.append(f"{found.mark.student}/{found.mark.question}")
        else:
            given[found.mark.student, found.mark.question] = found
    chosen: dict[tuple[str, str], Given] = {}
    for path in files:
        for found in _read(path, assignment, students, carried=False):
            key = found.mark.student, found.mark.question
            if key in chosen and chosen[key].mark != found.mark:
                raise WrittenError(f"{found.where}: student {found.mark.student!r}, question {found.mark.question!r} "
                                   f"is marked differently in {chosen[key].where}; keep one of the two")
            chosen[key] = found
    return Marks({**given, **chosen}, tuple(dropped))


def _read(path: Path, assignment: Assignment, students: Collection[str], carried: bool) -> list[Given]:
    flag = "the output folder's written.csv" if carried else "--written"
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise WrittenError(f"{flag} {path}: larger than {MAX_FILE_BYTES // 2**20} MB; give the written.csv "
                               "of a grading run")
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    except OSError as exc:
        raise WrittenError(f"{flag} {path}: cannot be read ({exc.strerror})") from exc
    except (UnicodeDecodeError, csv.Error) as exc:
        raise WrittenError(f"{flag} {path}: not a UTF-8 CSV file ({exc}); give the written.csv of a grading run") \
            from exc
    header = [cell_text(name).strip() for name in rows[0]] if rows else []
    missing = [name for name in WRITTEN_CSV_COLUMNS if name not in header]
    if missing:
        raise WrittenError(f"{flag} {path}: row 1: no column {', '.join(missing)} (a written.csv has the columns "
                           f"{', '.join(WRITTEN_CSV_COLUMNS)})")
    index = {name: header.index(name) for name in WRITTEN_CSV_COLUMNS}
    found: list[Given] = []
    seen: dict[tuple[str, str], int] = {}
    for number, row in enumerate(rows[1:], start=2):
        values = {name: cell_text(row[i]).strip() if i < len(row) else "" for name, i in index.items()}
        if not values["points"]:
            continue  # not graded yet
        mark = _mark(values, assignment, students, carried, f"{path}: row {number}")
        key = mark.student, mark.question
        if key in seen:
            raise WrittenError(f"{path}: row {number}: student {mark.student!r}, question {mark.question!r} is "
                               f"already marked in row {seen[key]}; keep one of the two")
        seen[key] = number
        found.append(Given(mark, path, number, carried))
    return found


def _mark(values: dict[str, str], assignment: Assignment, students: Collection[str], carried: bool,
          where: str) -> Mark:
    """The mark of one row with points; ``where``: the file and the row, which an error names."""

    def error(why: str) -> WrittenError:
        return WrittenError(f"{where}: {why}")

    student, question_id = values["student"], values["question"]
    questions = {question.id: question for question in assignment.written}
    question = questions.get(question_id)
    if question is None and not carried:
        raise error(f"unknown question {question_id!r} (the bundle's: {', '.join(questions) or 'none'})")
    if student not in students and not carried:
        raise error(f"unknown student {student!r}: no such folder in the class")
    try:
        points = float(values["points"])
    except ValueError:
        points = math.nan
    if not math.isfinite(points):
        raise error(f"points {values['points']!r} is not a number")
    if points < 0:
        raise error(f"points {values['points']} is negative")
    if question is not None and points > question.points + 1e-9:
        raise error(f"points {values['points']} is over the question's {question.points:g}")
    rubric = tuple(part.strip() for part in values["rubric"].split(";") if part.strip())
    known = [part.name for part in question.rubric] if question is not None else []
    unknown = [part for part in rubric if question is not None and part not in known]
    if unknown:
        raise error(f"unknown rubric part {unknown[0]!r} (the question's: {', '.join(known) or 'none'})")
    if not values["digest"]:
        raise error("no digest: a mark holds the digest of the answer it was given for (the digest column "
                    "of the run's written.csv)")
    return Mark(student, question_id, points, rubric, values["comment"], values["digest"])
