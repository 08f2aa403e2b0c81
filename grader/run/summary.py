"""The summary a grading run prints at the end: the class mean and each item's share of
full marks, tallied from the stream of results (one small row per student)."""

from __future__ import annotations

from dataclasses import dataclass

from ..assignment.config import Assignment
from ..records.answers import WrittenCounts
from ..records.answers import count as count_written
from ..records.results import SubmissionResult
from ..render.words import GRADE_IN_FOLDER, counted, file_problems, fmt_points


@dataclass(frozen=True)
class Summary:
    students: int
    mean: float
    max_score: float
    pass_rates: tuple[tuple[str, float], ...]  # item -> share of students with full points
    # "student: notebook ..." for each notebook missing, taken under another name or place or
    # among several files, or unusable: the cases an instructor wants to hear about before
    # the grades go out.
    file_problems: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # entries of the class folder that are not student folders
    # More to hear, each section's lines as its stage wrote them: an LMS download's intake (which
    # file was taken, names not recognised), what an LMS reporter could not match, the regrade.
    notes: tuple[str, ...] = ()
    written: WrittenCounts | None = None  # the written answers' states; None when the bundle has none
    written_step: str = GRADE_IN_FOLDER  # the next step while some await a grader

    def lines(self) -> list[str]:
        out = [f"{counted(self.students, 'student')} graded; class mean {self.mean:.1f} / {fmt_points(self.max_score)}"]
        if self.students:
            width = max(len(name) for name, _ in self.pass_rates)
            out += [f"  {name:<{width}}  {rate:6.1%} full marks" for name, rate in self.pass_rates]
        if self.written is not None and self.written.answers:
            step = f": {self.written_step}" if self.written.to_grade else ""
            out.append(self.written.describe() + step)
        if self.file_problems:
            out.append("notebooks missing, taken under another name or place or among several, or unusable:")
            out += [f"  {line}" for line in self.file_problems]
        if self.skipped:
            out.append("skipped in the class folder (not student folders):")
            out += [f"  {line}" for line in self.skipped]
        return out + list(self.notes)


class Tally:
    """Adds up the results as they stream in."""

    def __init__(self, assignment: Assignment) -> None:
        self.assignment = assignment
        self.scores: list[float] = []
        self.full: dict[str, int] = {item.name: 0 for item in assignment.items}
        self.file_problems: list[str] = []
        self.points = {question.id: question.points for question in assignment.written}
        self.written = WrittenCounts()

    def add(self, result: SubmissionResult) -> None:
        self.scores.append(result.score)
        self.file_problems += file_problems(result)
        self.written += count_written((row.status, self.points[row.answer.question]) for row in result.written)
        earned = {item.name: item.earned for item in result.items}
        for item in self.assignment.items:
            if earned.get(item.name, 0.0) >= item.points:
                self.full[item.name] += 1

    def summary(self) -> Summary:
        n = len(self.scores)
        rates = tuple((name, count / n if n else 0.0) for name, count in self.full.items())
        mean = sum(self.scores) / n if n else 0.0
        return Summary(n, mean, self.assignment.total_points, rates, tuple(sorted(self.file_problems)),
                       written=self.written if self.points else None)
