"""``gradescope/<student>.json``: Gradescope's autograder ``results.json``
(https://gradescope-autograders.readthedocs.io/en/latest/specs/#output-format): the ``score``,
the ``execution_time``, one test per check (its ``score``, ``max_score`` and, as ``output``,
why it failed), visible to the student, all shown as plain text; the autograder's own log
(``stdout``) stays hidden."""

from __future__ import annotations

import math
from typing import Any

from ..records.results import SubmissionResult
from ..render.feedback_text import check_output, checks_line, graded_elsewhere, submission_notes
from ..render.per_student import JsonPerStudent
from . import Reporter


class Gradescope(JsonPerStudent, Reporter):
    folder_name = "gradescope"

    def render(self, result: SubmissionResult) -> dict[str, Any]:
        return results(result)


def results(result: SubmissionResult) -> dict[str, Any]:
    """The student's results in Gradescope's format: the checks' points alone, as Gradescope
    grades the written answers in manually graded questions of its own."""
    tests = [
        {"name": f"{item.name}: {check.name}", "score": check.earned, "max_score": check.points,
         "status": "passed" if check.passed else "failed", "output": check_output(item, check),
         "visibility": "visible"}
        for item in result.items for check in item.checks
    ]
    notes = [*submission_notes(result), *graded_elsewhere(result, "Gradescope")]
    return {
        "score": result.items_score,
        "execution_time": math.ceil(result.seconds),
        "output": "\n".join([checks_line(result), *notes]),
        # Plain text, never Markdown or HTML: the outputs hold the student's messages.
        "output_format": "text", "test_output_format": "text", "test_name_format": "text",
        # Only the tests are for the student: the log names the grader's paths and settings.
        "stdout_visibility": "hidden",
        "visibility": "visible",
        "tests": tests,
    }
