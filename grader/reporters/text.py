"""Plain-text pieces shared by the per-check formats (JUnit, PrairieLearn, Gradescope)."""

from __future__ import annotations

from ..results import CheckResult, ItemResult, SubmissionResult


def check_output(item: ItemResult, check: CheckResult) -> str:
    """What a check's test shows: why it failed (the property that broke), or that it passed."""
    if check.passed:
        return "passed"
    return check.message or item.error or "failed"


def submission_notes(result: SubmissionResult) -> list[str]:
    """What the student should know beyond the checks: notebooks missing, unusable, taken under
    another name, and cells that raised while the notebook ran."""
    lines = []
    for nb in result.notebooks:
        if nb.failure:
            lines.append(f"{nb.notebook}: {nb.failure}")
        if nb.note:
            lines.append(f"{nb.notebook}: {nb.note}")
        for cell, error in nb.cell_errors:
            last = error.strip().splitlines()[-1] if error.strip() else error
            lines.append(f"{nb.notebook}, {cell} raised {last[:300]} while the notebook ran "
                         "(the following cells still ran).")
    return lines


def all_unusable(result: SubmissionResult) -> bool:
    """Nothing of the submission could be graded: no notebook could be read or loaded."""
    return not result.notebooks or all(nb.failure for nb in result.notebooks)
