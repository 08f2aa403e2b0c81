"""The written answers' own columns in the LMS gradebook files (canvas.csv, moodle.csv): one per
question that a person has graded for at least one student, after the file's own columns."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def graded_questions(questions: Sequence[str], earned: Iterable[Mapping[str, float]]) -> list[str]:
    """The ``questions`` graded for at least one student (``earned``: each student's points by question)."""
    earned = list(earned)
    return [question for question in questions if any(question in points for points in earned)]


def written_column(question: str) -> str:
    """The header of a written answer's own column: an import makes it a grade item of its own."""
    return f"{question} (written)"
