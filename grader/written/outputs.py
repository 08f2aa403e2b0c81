"""What every run of a bundle with written answers writes for the person grading them:
``written.csv`` (every student and question, the marks kept, the digest of each answer as it is
now, to fill in and give back with ``grade --written``) and ``written/<question>.html`` (every
answer to one question on one page). Written at the end, whole, into the run's staged folder."""

from __future__ import annotations

from pathlib import Path

from ..assignment.bundle import Bundle
from ..assignment.config import Assignment
from ..records.answers import GRADED, LABELS, UNANSWERED, WRITTEN_CSV_COLUMNS, WrittenRow
from ..records.results import RunInfo, SubmissionResult
from ..render.csv_cells import csv_text
from ..render.per_student import student_file
from ..render.words import fmt_points
from ..render.written_page import question_page

# After the columns that are read back: what the run found, for the person (not read back).
STATUS_COLUMN = "status"


class WrittenOutputs:
    """A stage of every run whose bundle has written questions."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.assignment: Assignment | None = None
        self.rows: list[WrittenRow] = []
        self.unread: set[str] = set()  # students whose folder could not be graded: their answers were not read

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.assignment = bundle.assignment

    def add(self, result: SubmissionResult) -> None:
        self.rows.extend(result.written)
        if not result.notebooks:
            self.unread.add(result.student)

    def close(self) -> None:
        assert self.assignment is not None, "start() first"
        order = [question.id for question in self.assignment.written]
        self.rows.sort(key=lambda row: (row.student, order.index(row.answer.question)))
        header = [*WRITTEN_CSV_COLUMNS, STATUS_COLUMN]
        lines = [csv_row(row, row.student in self.unread) for row in self.rows]
        (self.out_dir / "written.csv").write_text(csv_text([header, *lines]), encoding="utf-8", newline="")
        pages = self.out_dir / "written"
        pages.mkdir(exist_ok=True)
        for question in self.assignment.written:
            rows = [row for row in self.rows if row.answer.question == question.id]
            (pages / student_file(question.id, ".html")).write_text(question_page(question, rows), encoding="utf-8")


def csv_row(row: WrittenRow, unread: bool = False) -> list[str]:
    """A row of written.csv: a graded answer's mark; otherwise empty points (to fill in, for an
    answer that awaits a grader), and the digest of the answer as it is now (a changed answer's
    earlier comment kept as a start). ``unread``: the student's folder could not be graded this
    time, so its text is unknown: a mark is kept as it was given, to count again once it is read."""
    mark, answer = row.mark, row.answer
    status = row.status
    if mark is not None and unread and row.status != GRADED:
        return [row.student, answer.question, fmt_points(mark.points), ";".join(mark.rubric), mark.comment,
                mark.digest, f"{row.status}: the folder could not be graded this time; the mark is kept"]
    if mark is not None and row.status != GRADED:
        status = f"{row.status}: {fmt_points(mark.points)} points were given for an earlier text"
    elif row.status == UNANSWERED:
        status = f"{UNANSWERED}: {LABELS[UNANSWERED]}, 0 points"
    if mark is not None and row.status == GRADED:
        return [row.student, answer.question, fmt_points(mark.points), ";".join(mark.rubric), mark.comment,
                mark.digest, status]
    comment = mark.comment if mark is not None else ""
    return [row.student, answer.question, "", "", comment, answer.digest, status]
