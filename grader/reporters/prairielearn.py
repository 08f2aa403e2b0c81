"""``prairielearn/<student>.json``: PrairieLearn's external-grader results
(https://prairielearn.readthedocs.io/en/latest/externalGrading/#grading-results): ``gradable``,
``score`` from 0 to 1, ``message``, and one test per check with its ``points``, ``max_points``
and, as ``output``, why it failed. A submission none of whose notebooks could be read or loaded
is not gradable (PrairieLearn then does not count the attempt)."""

from __future__ import annotations

from typing import Any

from ..render.feedback_text import (
    all_unusable,
    check_message,
    check_output,
    checks_line,
    graded_elsewhere,
    submission_notes,
)
from ..render.per_student import JsonPerStudent
from ..results import SubmissionResult


class PrairieLearn(JsonPerStudent):
    folder_name = "prairielearn"

    def render(self, result: SubmissionResult) -> dict[str, Any]:
        return results(result)


def results(result: SubmissionResult) -> dict[str, Any]:
    """The student's results in PrairieLearn's format: the checks' points alone, as
    PrairieLearn grades the written answers by hand (its manual grading) itself."""
    notes = [*submission_notes(result), *graded_elsewhere(result, "PrairieLearn")]
    tests = [
        {"name": f"{item.name}: {check.name}", "description": f"{item.name} ({item.notebook})",
         "points": check.earned, "max_points": check.points, "output": check_output(item, check),
         "message": "" if check.passed else check_message(item, check)}
        for item in result.items for check in item.checks
    ]
    score = result.items_score / result.items_max if result.items_max > 0 else 0.0
    return {
        "gradable": not all_unusable(result),
        "score": min(1.0, max(0.0, score)),
        "message": checks_line(result),
        "output": "\n".join(notes),
        "tests": tests,
    }
