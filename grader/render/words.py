"""Words for what users read: counts ("1 student", "2 students"), points, what to do next
about written answers, and what went wrong with a student's notebooks."""

from __future__ import annotations

from ..records.results import SubmissionResult

# What to do next about answers that await a grader, as fits where the class came from.
GRADE_IN_FOLDER = ("grade them on the pages written/<id>.html (export, then grade again with --written FILE) or in "
                   "written.csv (then grade again)")
GRADE_IN_FORMGRADER = "grade them in formgrader, then grade again with --nbgrader"


def fmt_points(value: float) -> str:
    return f"{value:g}"


def fmt_earned(value: float | None) -> str:
    """A written answer's points in a table: empty until a person has graded it."""
    return "" if value is None else fmt_points(value)



def counted(number: float, noun: str) -> str:
    """``number`` (as points are written) and ``noun``, plural unless it is one: "1 student",
    "0 students", "2.5 points"."""
    return f"{number:g} {noun}{'' if number == 1 else 's'}"


def file_problems(result: SubmissionResult) -> list[str]:
    """What went wrong with finding or reading each of a student's notebooks."""
    lines = []
    for nb in result.notebooks:
        if nb.path is None:
            lines.append(f"{result.student}: {nb.notebook} missing ({nb.failure})")
        elif nb.note:
            lines.append(f"{result.student}: {nb.notebook}: {nb.note}")
        if nb.path is not None and nb.failure:
            lines.append(f"{result.student}: {nb.notebook}: {nb.failure}")
    return lines
