"""``prairielearn/<student>.json``: PrairieLearn's external-grader results
(https://prairielearn.readthedocs.io/en/latest/externalGrading/#grading-results): ``gradable``,
``score`` from 0 to 1, ``message``, and one test per check with its ``points``, ``max_points``
and, as ``output``, why it failed. A submission none of whose notebooks could be read or loaded
is not gradable (PrairieLearn then does not count the attempt).

PrairieLearn shows ``message`` and ``output`` as HTML made by ansi2html: it escapes ``<`` and
``&``, but turns terminal escapes into styles, hidden text and links (OSC 8), and a cursor
movement erases the lines before it. So every control character of the text (a student's
exception can hold any) is written as its visible picture (ESC as U+241B)."""

from __future__ import annotations

import re
from typing import Any

from ..records.results import SubmissionResult
from ..render.feedback_text import (
    all_unusable,
    check_message,
    check_output,
    checks_line,
    graded_elsewhere,
    submission_notes,
)
from ..render.per_student import JsonPerStudent
from . import Reporter


class PrairieLearn(JsonPerStudent, Reporter):
    folder_name = "prairielearn"

    def render(self, result: SubmissionResult) -> dict[str, Any]:
        return results(result)


def results(result: SubmissionResult) -> dict[str, Any]:
    """The student's results in PrairieLearn's format: the checks' points alone, as
    PrairieLearn grades the written answers by hand (its manual grading) itself."""
    notes = [*submission_notes(result), *graded_elsewhere(result, "PrairieLearn")]
    tests = [
        {"name": f"{item.name}: {check.name}", "description": f"{item.name} ({item.notebook})",
         "points": check.earned, "max_points": check.points, "output": shown(check_output(item, check)),
         "message": "" if check.passed else shown(check_message(item, check))}
        for item in result.items for check in item.checks
    ]
    score = result.items_score / result.items_max if result.items_max > 0 else 0.0
    return {
        "gradable": not all_unusable(result),
        "score": min(1.0, max(0.0, score)),
        "message": checks_line(result),
        "output": shown("\n".join(notes)),
        "tests": tests,
    }


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """``text`` with each control character but a line break or a tab as its picture (U+2400
    onwards: ESC is U+241B, DEL U+2421; one of C1 U+FFFD), which no terminal emulation acts on."""
    return _CONTROL.sub(lambda m: _picture(ord(m.group())), text)


def _picture(code: int) -> str:
    return chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7F else "\ufffd"
