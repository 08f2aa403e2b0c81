"""The marks merged into each student's result as it streams in: each written answer beside the
mark given for its text, and the score counting the graded answers' points."""

from __future__ import annotations

from dataclasses import replace

from ..records.answers import row_of
from ..records.results import SubmissionResult
from .marks import Marks, WrittenError


def merge(result: SubmissionResult, marks: Marks) -> SubmissionResult:
    """``result`` with ``marks``, each answer in the state that follows (``model.state_of``). A
    mark whose digest is not the answer's own was given for an earlier text: from the previous
    run's written.csv the answer awaits a grader again ("changed"; "unanswered", 0 points, when
    the answer is gone, or its folder could not be graded this time and no text was read); from a
    ``--written`` file it is an error naming the row, as the person grading read another text than
    the one submitted (unless the folder could not be graded)."""
    rows = []
    for row in result.written:
        given = marks.given.get((result.student, row.answer.question))
        if given is not None and given.mark.digest != row.answer.digest and not given.carried and result.notebooks:
            raise WrittenError(f"{given.where}: the answer of {result.student!r} to {row.answer.question!r} has "
                               f"changed since it was graded (digest {given.mark.digest}, now {row.answer.digest}); "
                               "grade it again from this run's written.csv, and nothing was merged")
        rows.append(row_of(row.answer, None if given is None else given.mark))
    earned = sum(row.earned or 0.0 for row in rows)
    return replace(result, written=tuple(rows), score=round(result.items_score + earned, 6))
