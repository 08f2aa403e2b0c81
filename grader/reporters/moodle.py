"""``moodle.csv``: the scores in a CSV that Moodle imports, by either of its two pages.

Columns ``Identifier``, ``Full name``, ``Grade``, ``Maximum Grade``, ``Feedback comments``
(the names of Moodle's grading worksheet). When the class was a Moodle download,
``Identifier`` is ``Participant <id>``, the participant id of the download's names, which the
assignment's "Upload grading worksheet" matches; otherwise it is the student's id (the folder's
name), which the gradebook's CSV import maps to ``username``, ``useridnumber`` or
``useremail``, whichever the folders are named by. ``Feedback comments`` holds the first
lines of the student's feedback: the score and each item that lost points, with why, each
whole, then a pointer to the feedback file for the rest. Moodle stores the comment as HTML,
so it is written as HTML that shows the text as written (``lms_columns.html_comment``): a
student's markup in an exception's message is text, and line breaks are ``<br>``.

``Grade`` is the checks' points, and ``Maximum Grade`` theirs (the comment's first line says so,
beside the whole with the written answers, as the feedback file gives it). Each written answer
that a person has graded for at least one student gets a column of its own after those,
``<id> (written)``, filled where graded and empty where the answer awaits a grader (the
gradebook's import maps it to a grade item).
"""

from __future__ import annotations

from pathlib import Path

from ..assignment.bundle import Bundle
from ..lms.names import MOODLE
from ..records.lms_download import LmsInfo
from ..records.results import RunInfo, SubmissionResult
from ..render.csv_cells import csv_text
from ..render.feedback_text import check_output, checks_score, submission_notes, written_points
from ..render.lms_columns import graded_questions, html_comment, written_column
from ..render.words import fmt_earned, fmt_points
from . import Reporter

COLUMNS = ["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"]
FEEDBACK_LINES = 6  # the comment's lines; the rest is in the student's feedback file


def feedback_lines(result: SubmissionResult, limit: int = FEEDBACK_LINES) -> list[str]:
    """The first lines of the feedback: the score, then each item short of full marks (and
    each notebook that could not be used) with the first reason, each whole (a check's message
    is capped where it is made), then how many more the feedback file has."""
    lines = [checks_score(result)]  # Grade is the checks' alone: the line says so, and gives the whole
    notes = submission_notes(result)
    lines += notes
    lines += [f"written answer {row.answer.question}: {written_points(row, ())}" for row in result.written]
    unusable = {nb.failure for nb in result.notebooks if nb.failure}
    for item in result.items:
        if item.earned >= item.points or item.error in unusable:
            continue  # full marks, or a notebook that could not be used (said once above)
        failed = next((c for c in item.checks if not c.passed), None)
        why = check_output(item, failed) if failed is not None else (item.error or "")
        points = f"{item.name}: {fmt_points(item.earned)} / {fmt_points(item.points)}"
        lines.append(f"{points}: {why}" if why else points)
    if len(lines) > limit:
        lines = [*lines[:limit - 1], f"... and {len(lines) - limit + 1} more: see your feedback file"]
    return lines


class MoodleGrades(Reporter):
    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / "moodle.csv"
        self.lms: LmsInfo | None = None
        # (student, the row, its written answers' points once graded)
        self.rows: list[tuple[str, list[str], dict[str, float]]] = []
        self.questions: tuple[str, ...] = ()
        self.items_points = 0.0

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.lms = run.lms if run.lms is not None and run.lms.system == MOODLE else None
        self.items_points = bundle.assignment.items_points
        self.questions = tuple(question.id for question in bundle.assignment.written)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        found = self.lms.student(result.student) if self.lms is not None else None
        identifier, name = (f"Participant {found.lms_id}", found.name) if found else (result.student, result.student)
        row = [identifier, name, fmt_points(result.items_score), fmt_points(self.items_points),
               html_comment(feedback_lines(result))]
        self.rows.append((result.student, row, result.written_earned))

    def close(self) -> None:
        self.rows.sort(key=lambda row: row[0])
        graded = graded_questions(self.questions, (points for _, _, points in self.rows))
        header = COLUMNS + [written_column(q) for q in graded]
        rows = [row + [fmt_earned(points.get(q)) for q in graded] for _, row, points in self.rows]
        self.path.write_text(csv_text([header, *rows]), encoding="utf-8", newline="")
