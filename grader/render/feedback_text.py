"""The sentences the feedback formats share: a check's text, a submission's notes, a cell's error
in one line, and whether an item was attempted."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..assignment.config import WrittenQuestion
from ..records.answers import CHANGED, UNANSWERED, WrittenRow
from ..records.results import CheckResult, ItemResult, NotebookResult, SubmissionResult
from .words import counted

AWAITS = "awaits a grader"  # a written answer no person has graded yet, in every format
NO_ANSWER = "no answer"  # a written answer missing, empty or left as released: 0 points, as nbgrader gives


def graded_elsewhere(result: SubmissionResult, platform: str) -> list[str]:
    """What a platform that grades written answers by hand itself tells the student of them:
    its score is the checks' alone, and what the whole is out of."""
    if not result.written:
        return []
    ids = ", ".join(row.answer.question for row in result.written)
    return [f"Written answers ({ids}; {counted(result.written_max, 'point')}) are graded by hand in {platform}, "
            f"beside this score: {_points(result.max_score)} points in all."]


def checks_line(result: SubmissionResult) -> str:
    """The score of an output whose score is the checks' points alone, saying so when the bundle
    has written answers (so that its maximum is not read as the whole's)."""
    line = f"Score: {_points(result.items_score)} / {_points(result.items_max)}"
    return f"{line} for the checks" if result.written else line


def checks_score(result: SubmissionResult) -> str:
    """``checks_line`` where the written answers' points are in other columns (an LMS's grade items):
    with them, the whole as the feedback file and grades.csv give it."""
    line = checks_line(result)
    if not result.written:
        return line
    waiting = sum(row.awaits_grader for row in result.written)
    still = f"; {counted(waiting, 'answer')} {'awaits' if waiting == 1 else 'await'} a grader" if waiting else ""
    return f"{line}; {_points(result.score)} / {_points(result.max_score)} with the written answers{still}"


def _points(value: float) -> str:
    return f"{value:g}"


def not_attempted(item: ItemResult) -> bool:
    """Every check of ``item`` failed on the stub's ``NotImplementedError``: the student left
    the released stub as it was."""
    return bool(item.checks) and all(not c.passed and "NotImplementedError" in c.message for c in item.checks)


# What every format says of an item left as the stub, beside the item's name: once for the item
# in the feedback pages and check.py, for each of its checks where each check is a test.
NOT_ATTEMPTED = "not attempted: every check raised NotImplementedError (the exercise's stub is unchanged)"


def check_message(item: ItemResult, check: CheckResult) -> str:
    """Why a failed check failed: the property that broke, or that the item is the stub."""
    return NOT_ATTEMPTED if not_attempted(item) else check.message


def check_output(item: ItemResult, check: CheckResult) -> str:
    """What a check's test shows: why it failed (the property that broke), or that it passed."""
    if check.passed:
        return "passed"
    return "\n".join([check_message(item, check) or item.error or "failed", *item.mistakes])


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
            lines.append(f"{nb.notebook}, {cell} raised {error_summary(cell, error)}{ran_after(nb, cell)}")
    return lines


def error_summary(cell: str, error: str) -> str:
    """A cell's error in one line: its last line (``Type: message``), and for a syntax error
    the line it is on (of the file for a module's statement, of the cell in a notebook)."""
    lines = error.strip().splitlines()
    text = lines[-1] if lines else error
    where = re.match(r'\s*File "[^"]*", line (\d+)', lines[0]) if len(lines) > 1 else None
    if where and text.startswith(("SyntaxError", "IndentationError", "TabError")):
        text += f" (line {where.group(1)}{'' if cell.startswith('line ') else ' of the cell'})"
    return text[:300]


def ran_after(nb: NotebookResult, cell: str) -> str:
    """The end of the sentence about a cell that raised: whether the rest still ran."""
    if not nb.ran_after(cell):
        return " while the notebook ran."
    rest = "the statements after it" if cell.startswith("line ") else "the following cells"
    return f" while the notebook ran ({rest} still ran)."


def all_unusable(result: SubmissionResult) -> bool:
    """Nothing of the submission could be graded: no notebook could be read or loaded."""
    return not result.notebooks or all(nb.failure for nb in result.notebooks)


def written_points(row: WrittenRow, questions: Sequence[WrittenQuestion]) -> str:
    """A written answer's points as every feedback format shows them: "1.5 / 2" once graded,
    "0 / 2 (no answer)" when there is none, else that it awaits a grader (again, when it changed
    since it was graded)."""
    most = next((q.points for q in questions if q.id == row.answer.question), None)
    if row.earned is not None:
        points = f"{row.earned:g}" + ("" if most is None else f" / {most:g}")
        return f"{points} ({NO_ANSWER})" if row.status == UNANSWERED else points
    if row.status == CHANGED:
        return f"changed since it was graded: {AWAITS} again"
    return AWAITS
