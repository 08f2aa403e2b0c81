"""``grades.csv``: ``student, score, max_score``, then one column per graded item, then one per
written answer (its id; empty until a person has graded it, as the students' contract says, and
so empty for no answer too, whose 0 points ``score`` counts: written.csv's status tells the two
apart; ``max_score`` counts every point), sorted by student; written whole at the end (only one small row per
student is kept until then). When the class was a Canvas or Moodle download, a last column
``late`` (``true``, ``false``, or empty where the download does not say): the contract's
columns come first, unchanged."""

from __future__ import annotations

from pathlib import Path

from ..assignment.bundle import Bundle
from ..assignment.config import Assignment
from ..records.answers import UNANSWERED
from ..records.lms_download import LmsInfo
from ..records.results import RunInfo, SubmissionResult
from ..render.csv_cells import csv_text
from ..render.words import fmt_earned, fmt_points
from . import Reporter


class GradesCsv(Reporter):
    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / "grades.csv"
        self.rows: list[tuple[str, float, list[float], list[str]]] = []
        self.assignment: Assignment | None = None
        self.lms: LmsInfo | None = None

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.assignment = bundle.assignment
        self.lms = run.lms
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        assert self.assignment is not None, "start() first"
        by_item = {item.name: item.earned for item in result.items}
        # A person's points only: no answer counts 0 in ``score`` but is no grade (the contract's empty cell).
        by_question = {row.answer.question: row.earned for row in result.written if row.status != UNANSWERED}
        written = [fmt_earned(by_question.get(question.id)) for question in self.assignment.written]
        self.rows.append((result.student, result.score, [by_item.get(i.name, 0.0) for i in self.assignment.items],
                          written))

    def close(self) -> None:
        assert self.assignment is not None, "start() first"
        self.rows.sort(key=lambda row: row[0])
        late = ["late"] if self.lms is not None else []
        header = ["student", "score", "max_score", *(i.name for i in self.assignment.items),
                  *(question.id for question in self.assignment.written), *late]
        total = fmt_points(self.assignment.total_points)
        rows = [[student, fmt_points(score), total, *(fmt_points(p) for p in items), *written, *self._late(student)]
                for student, score, items, written in self.rows]
        self.path.write_text(csv_text([header, *rows]), encoding="utf-8", newline="")

    def _late(self, student: str) -> list[str]:
        if self.lms is None:
            return []
        found = self.lms.student(student)
        return ["" if found is None or found.late is None else str(found.late).lower()]
