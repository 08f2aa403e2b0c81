"""``feedback/<student>.md``: per item, which property failed and how; cells that raised;
what the student's code printed. One file per student, written as the result arrives. Every
piece of text that came from the student (messages, printed output, cells, file names, the
id) goes through ``grader.render.markdown``: it shows as written, and makes no heading, link
or HTML of the student's. Our own sentences (the points, what ran after a cell that raised, the
known mistakes' sentences) are written as they are, and our names (items, checks, notebooks,
questions) as code."""

from __future__ import annotations

from collections.abc import Sequence

from ..assignment.config import WrittenQuestion
from ..records.results import CheckResult, SubmissionResult
from ..render.feedback_text import NOT_ATTEMPTED, error_summary, not_attempted, ran_after, written_points
from ..render.markdown import md_block, md_code, md_inline
from ..render.per_student import FilePerStudent
from ..render.words import fmt_points
from . import Reporter


class FeedbackMarkdown(FilePerStudent, Reporter):
    folder_name, suffix = "feedback", ".md"

    def text(self, result: SubmissionResult) -> str:
        return feedback(result, self.questions)


def feedback(result: SubmissionResult, questions: Sequence[WrittenQuestion] = ()) -> str:
    """The student's feedback in Markdown: what passed, which property failed and how; each
    written answer's points and comment, or that it awaits a grader."""
    lines = [f"# Feedback for {md_inline(result.student)}", "",
             f"**Score: {fmt_points(result.score)} / {fmt_points(result.max_score)}**", ""]
    for nb in result.notebooks:
        for text in (nb.failure, nb.note):
            if text:
                lines += [f"> {md_code(nb.notebook)}: {md_inline(text)}", ""]
        for cell, error in nb.cell_errors:
            lines += [f"> {md_code(nb.notebook)}, {md_inline(cell)} raised {md_code(error_summary(cell, error))}"
                      f"{ran_after(nb, cell)}", ""]
    lines += ["| item | points |", "| --- | --- |"]
    lines += [f"| {md_code(item.name)} | {fmt_points(item.earned)} / {fmt_points(item.points)} |"
              for item in result.items]
    lines.append("")
    lines += _written(result, questions)
    unusable = {nb.failure for nb in result.notebooks if nb.failure}
    for item in result.items:
        failed = [c for c in item.checks if not c.passed]
        if not failed and not item.output:
            continue
        if item.error in unusable:
            continue  # said once above, for its notebook, not once per check
        lines += [f"## {md_code(item.name)}: {fmt_points(item.earned)} / {fmt_points(item.points)}", ""]
        if not_attempted(item):  # once, not once per check
            lines += [f"{NOT_ATTEMPTED[0].upper()}{NOT_ATTEMPTED[1:]}.", ""]
            continue
        for c in item.checks:
            lines += _check(c)
        lines += [line for mistake in item.mistakes for line in ("", f"> {mistake}")]
        if item.output:
            lines += ["", "Your code printed:", "", *md_block(item.output)]
        lines.append("")
    return "\n".join(lines) + "\n"


def _check(c: CheckResult) -> list[str]:
    """A check's line of the list: a message of many lines follows it, in a block of its item."""
    line = f"- {md_code(c.name)} ({fmt_points(c.points)} pt) {'passed' if c.passed else '**failed**'}"
    if c.passed:
        return [line]
    if len(c.message.splitlines()) <= 1:
        return [f"{line}: {md_inline(c.message)}"]
    return [f"{line}:", "", *md_block(c.message, indent="  "), ""]


def _written(result: SubmissionResult, questions: Sequence[WrittenQuestion]) -> list[str]:
    """The written answers: a table of their points, then each grader's comment (a person's
    text, shown as written) and what the reading of the answer found amiss."""
    if not result.written:
        return []
    lines = ["| written answer | points |", "| --- | --- |"]
    lines += [f"| {md_code(row.answer.question)} | {written_points(row, questions)} |"
              for row in result.written]
    lines.append("")
    for row in result.written:
        comment = row.comment
        if comment:
            lines += [f"Comment on {md_code(row.answer.question)}:", "", *md_block(comment), ""]
        if row.answer.note:
            lines += [f"> {md_code(row.answer.question)}: {md_inline(row.answer.note)}", ""]
    return lines
