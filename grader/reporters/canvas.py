"""``canvas.csv``: the gradebook CSV that Canvas exports (Grades > Export), with one
assignment's column filled in, ready for Grades > Import.

The file keeps the export's identifying columns (``Student``, ``ID``, ``SIS User ID``,
``SIS Login ID``, ``Integration ID``, ``Root Account``, ``Section``: those it has) and its
rows (the ``Points Possible`` row included), plus the one assignment column, so the import
changes nothing else. A student is matched by Canvas's user id when the class was a Canvas
download; otherwise by the student's id equal to one of ``ID``, ``SIS User ID``,
``SIS Login ID`` or ``Student``. Students of the gradebook without a submission get 0 or an
empty cell (``missing``); submissions that match no student are listed in the summary.

The assignment column holds the checks' points. Each written answer that a person has graded
for at least one student gets a column of its own, ``<id> (written)`` (an import makes it an
assignment of its own), filled where graded and empty where the answer awaits a grader: Canvas
adds the two up, as grades.csv's ``score`` does.
"""

from __future__ import annotations

import argparse
import csv
import re
import unicodedata
from pathlib import Path
from typing import Any

from ..assignment.bundle import Bundle
from ..lms.names import CANVAS
from ..records.lms_download import LmsInfo
from ..records.results import RunInfo, SubmissionResult
from ..render.csv_cells import csv_text
from ..render.lms_columns import graded_questions, written_column
from ..render.words import fmt_earned, fmt_points
from . import Reporter

IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Root Account", "Section")
MATCHED_BY = ("ID", "SIS User ID", "SIS Login ID", "Student")
MISSING = ("blank", "zero")
_ASSIGNMENT_ID = re.compile(r"\s*\(\d+\)$")  # Canvas heads a column "Name (assignment id)"


class CanvasGradebookError(ValueError):
    """The gradebook or the column cannot be used; the message names the fix."""


def _key(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip())


class Gradebook:
    """A Canvas gradebook export: its header, its rows, and the assignment column chosen."""

    def __init__(self, path: Path, column: str) -> None:
        try:
            with open(path, newline="", encoding="utf-8-sig") as handle:
                rows = list(csv.reader(handle))
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise CanvasGradebookError(f"--canvas-gradebook {path}: cannot be read ({exc}); give the CSV that "
                                       "Canvas's Grades > Export writes") from exc
        if not rows or not {"Student", "ID"} <= set(rows[0]):
            raise CanvasGradebookError(f"--canvas-gradebook {path}: not a Canvas gradebook export (no 'Student' "
                                       "and 'ID' columns); give the CSV that Canvas's Grades > Export writes")
        self.header = rows[0]
        width = len(self.header)
        self.rows = [row + [""] * (width - len(row)) for row in rows[1:] if any(cell.strip() for cell in row)]
        candidates = [h for h in self.header
                      if h not in IDENTITY and (h == column or _ASSIGNMENT_ID.sub("", h) == column)]
        exact = [h for h in candidates if h == column]
        if exact:
            candidates = exact
        if len(candidates) != 1:
            others = [h for h in self.header if h not in IDENTITY][:12]
            why = "is in more than one column" if candidates else "is not a column of it"
            raise CanvasGradebookError(f"--canvas-column {column!r} {why} of {path}; give one of: "
                                       + ", ".join(repr(h) for h in others))
        self.column = candidates[0]
        self.index = self.header.index(self.column)
        self.keep = [i for i, h in enumerate(self.header) if h in IDENTITY] + [self.index]

        # Each identifying column's values -> the rows holding them, looked up once per submission.
        self.index_of: dict[str, dict[str, list[int]]] = {name: {} for name in MATCHED_BY if name in self.header}
        for number, row in enumerate(self.rows):
            if self.is_student(row):
                for name, values in self.index_of.items():
                    values.setdefault(_key(row[self.header.index(name)]), []).append(number)

    def is_student(self, row: list[str]) -> bool:
        """A student's row: it has a Canvas user id (not the ``Points Possible`` row)."""
        return row[self.header.index("ID")].strip().isdigit()

    def points_possible(self) -> str | None:
        for row in self.rows:
            if row[0].strip() == "Points Possible":
                return row[self.index].strip() or None
        return None

    def find(self, student: str, canvas_id: str | None = None) -> list[int]:
        """The rows of ``student``: by its Canvas user id when known, else the first of
        ``MATCHED_BY`` that holds its id."""
        if canvas_id is not None:
            return self.index_of["ID"].get(canvas_id, [])
        for values in self.index_of.values():
            if _key(student) in values:
                return values[_key(student)]
        return []


class CanvasGradebook(Reporter):
    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--canvas-gradebook", type=Path, metavar="FILE",
                            help="with --format canvas: the gradebook CSV that Canvas's Grades > Export writes")
        parser.add_argument("--canvas-column", metavar="NAME",
                            help="with --format canvas: the assignment's column to fill (its header, with or "
                            "without the ' (id)' Canvas appends)")
        parser.add_argument("--canvas-missing", choices=MISSING, default="blank",
                            help="with --format canvas: gradebook students without a submission get an empty cell "
                            "(default) or 0")

    @classmethod
    def options(cls, args: argparse.Namespace, chosen: bool) -> dict[str, Any]:
        if not chosen and (args.canvas_gradebook or args.canvas_column):
            raise ValueError("grade: --canvas-gradebook and --canvas-column go with --format canvas")
        return {"gradebook": args.canvas_gradebook, "column": args.canvas_column, "missing": args.canvas_missing}

    def __init__(self, out_dir: Path, gradebook: Path | None = None, column: str | None = None,
                 missing: str = "blank") -> None:
        if missing not in MISSING:
            raise CanvasGradebookError(f"--canvas-missing {missing!r}: give one of {', '.join(MISSING)}")
        self.path = out_dir / "canvas.csv"
        # Read now, so that a wrong file or column is told before any student is graded.
        if gradebook is None or column is None:
            raise CanvasGradebookError("--format canvas needs --canvas-gradebook FILE (the CSV of Canvas's Grades > "
                                       "Export) and --canvas-column NAME (the assignment's column in it)")
        self.book = Gradebook(Path(gradebook), column)
        self.missing = missing
        self.lms: LmsInfo | None = None
        self.items_points = 0.0  # the checks' points: the assignment column's maximum
        self.written_points = 0.0  # the written answers', in columns of their own
        self.scores: dict[int, float] = {}  # gradebook row -> score
        self.written: dict[int, dict[str, float]] = {}  # gradebook row -> written answer -> points, once graded
        self.questions: tuple[str, ...] = ()
        self.unmatched: list[str] = []
        self.ambiguous: list[str] = []

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.lms = run.lms if run.lms is not None and run.lms.system == CANVAS else None
        self.items_points = bundle.assignment.items_points
        self.written_points = bundle.assignment.written_points
        self.questions = tuple(question.id for question in bundle.assignment.written)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        if self.lms is not None:  # a Canvas download: its user ids
            found = self.lms.student(result.student)
            rows = self.book.find(result.student, found.lms_id) if found is not None else []
        else:
            rows = self.book.find(result.student)
        if len(rows) == 1:
            self.scores[rows[0]] = result.items_score
            self.written[rows[0]] = result.written_earned
        elif rows:
            self.ambiguous.append(result.student)
        else:
            self.unmatched.append(result.student)

    def close(self) -> None:
        book = self.book
        graded = graded_questions(self.questions, self.written.values())
        rows = [[book.header[i] for i in book.keep] + [written_column(q) for q in graded]]
        for number, row in enumerate(book.rows):
            row = list(row)
            if book.is_student(row):
                if number in self.scores:
                    row[book.index] = fmt_points(self.scores[number])
                else:
                    row[book.index] = "0" if self.missing == "zero" else ""
            points = self.written.get(number, {})
            rows.append([row[i] for i in book.keep] + [fmt_earned(points.get(q)) for q in graded])
        self.path.write_text(csv_text(rows), encoding="utf-8", newline="")

    def _whole(self) -> str:
        """What the column's maximum leaves out, beside grades.csv's max_score, which counts it."""
        if not self.written_points:
            return " (as in grades.csv)"
        return (f" (the checks' points; the written answers' {fmt_points(self.written_points)} are in columns of "
                f"their own: {fmt_points(self.items_points + self.written_points)} in all, grades.csv's max_score)")

    def summary_lines(self) -> list[str]:
        book = self.book
        students = [row for row in book.rows if book.is_student(row)]
        without = len(students) - len(self.scores)
        lines = [f"canvas.csv: column {book.column!r} filled for {len(self.scores)} of {len(students)} students "
                 f"of the gradebook; {without} without a submission "
                 + ("given 0" if self.missing == "zero" else "left blank")]
        possible = book.points_possible()
        if possible is not None and possible != fmt_points(self.items_points):
            lines.append(f"  note: Canvas says the column is worth {possible} points; the scores are out of "
                         f"{fmt_points(self.items_points)}, not rescaled{self._whole()}")
        if self.unmatched:
            lines.append(f"  submissions that match no student of the gradebook ({len(self.unmatched)}): "
                         + ", ".join(sorted(self.unmatched)))
        if self.ambiguous:
            lines.append(f"  submissions that match more than one student, left out ({len(self.ambiguous)}): "
                         + ", ".join(sorted(self.ambiguous)))
        return lines
