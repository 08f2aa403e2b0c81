"""The summary a grading run prints at the end: the class mean and each item's share of
full marks, tallied from the stream of results (one small row per student)."""

from __future__ import annotations

from dataclasses import dataclass

from .config import Assignment
from .results import SubmissionResult


def fmt_points(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class Summary:
    students: int
    mean: float
    max_score: float
    pass_rates: tuple[tuple[str, float], ...]  # item -> share of students with full points

    def lines(self) -> list[str]:
        out = [f"{self.students} students graded; class mean {self.mean:.1f} / {fmt_points(self.max_score)}"]
        if self.students:
            width = max(len(name) for name, _ in self.pass_rates)
            out += [f"  {name:<{width}}  {rate:6.1%} full marks" for name, rate in self.pass_rates]
        return out


class Tally:
    """Adds up the results as they stream in."""

    def __init__(self, assignment: Assignment) -> None:
        self.assignment = assignment
        self.scores: list[float] = []
        self.full: dict[str, int] = {item.name: 0 for item in assignment.items}

    def add(self, result: SubmissionResult) -> None:
        self.scores.append(result.score)
        earned = {item.name: item.earned for item in result.items}
        for item in self.assignment.items:
            if earned.get(item.name, 0.0) >= item.points:
                self.full[item.name] += 1

    def summary(self) -> Summary:
        n = len(self.scores)
        rates = tuple((name, count / n if n else 0.0) for name, count in self.full.items())
        mean = sum(self.scores) / n if n else 0.0
        return Summary(n, mean, self.assignment.max_score, rates)
