"""``gradescope/<student>.json``: Gradescope's autograder ``results.json``
(https://gradescope-autograders.readthedocs.io/en/latest/specs/#output-format): the ``score``,
the ``execution_time``, one test per check (its ``score``, ``max_score`` and, as ``output``,
why it failed), visible to the student; the autograder's own log (``stdout``) stays hidden."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..bundle import Bundle
from ..filenames import safe_name
from ..report import fmt_points
from ..results import RunInfo, SubmissionResult
from .text import check_output, submission_notes


class Gradescope:
    def __init__(self, out_dir: Path) -> None:
        self.folder = out_dir / "gradescope"

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        path = self.folder / f"{safe_name(result.student)}.json"
        path.write_text(json.dumps(results(result), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    def close(self) -> None:
        return None


def results(result: SubmissionResult) -> dict[str, object]:
    """The student's results in Gradescope's format."""
    tests = [
        {"name": f"{item.name}: {check.name}", "score": check.earned, "max_score": check.points,
         "status": "passed" if check.passed else "failed", "output": check_output(item, check),
         "visibility": "visible"}
        for item in result.items for check in item.checks
    ]
    notes = submission_notes(result)
    return {
        "score": result.score,
        "execution_time": math.ceil(result.seconds),
        "output": "\n".join([f"Score: {fmt_points(result.score)} / {fmt_points(result.max_score)}", *notes]),
        # Only the tests are for the student: the log names the grader's paths and settings.
        "stdout_visibility": "hidden",
        "visibility": "visible",
        "tests": tests,
    }
