"""``feedback/<student>.md``: per item, which property failed and how; cells that raised;
what the student's code printed. One file per student, written as the result arrives."""

from __future__ import annotations

from ..render.feedback_text import NOT_ATTEMPTED, error_summary, not_attempted, ran_after
from ..render.per_student import FilePerStudent
from ..results import SubmissionResult
from ..summary import fmt_points


class FeedbackMarkdown(FilePerStudent):
    folder_name, suffix = "feedback", ".md"

    def text(self, result: SubmissionResult) -> str:
        return feedback(result)


def feedback(result: SubmissionResult) -> str:
    """The student's feedback in Markdown: what passed, which property failed and how."""
    lines = [f"# Feedback for {result.student}", "",
             f"**Score: {fmt_points(result.score)} / {fmt_points(result.max_score)}**", ""]
    for nb in result.notebooks:
        if nb.failure:
            lines += [f"> **{nb.notebook}**: {nb.failure}", ""]
        if nb.note:
            lines += [f"> **{nb.notebook}**: {nb.note}", ""]
        for cell, error in nb.cell_errors:
            summary = error_summary(cell, error).replace("`", "'")
            lines += [f"> {nb.notebook}, {cell.replace('`', chr(39))} raised `{summary}`{ran_after(nb, cell)}", ""]
    lines += ["| item | points |", "| --- | --- |"]
    lines += [f"| `{item.name}` | {fmt_points(item.earned)} / {fmt_points(item.points)} |" for item in result.items]
    lines.append("")
    unusable = {nb.failure for nb in result.notebooks if nb.failure}
    for item in result.items:
        failed = [c for c in item.checks if not c.passed]
        if not failed and not item.output:
            continue
        if item.error in unusable:
            continue  # said once above, for its notebook, not once per check
        lines += [f"## `{item.name}`: {fmt_points(item.earned)} / {fmt_points(item.points)}", ""]
        if not_attempted(item):  # once, not once per check
            lines += [f"{NOT_ATTEMPTED[0].upper()}{NOT_ATTEMPTED[1:]}.", ""]
            continue
        for c in item.checks:
            mark = "passed" if c.passed else "**failed**"
            detail = "" if c.passed else f": {c.message}"
            lines.append(f"- `{c.name}` ({fmt_points(c.points)} pt) {mark}{detail}")
        lines += [line for mistake in item.mistakes for line in ("", f"> {mistake}")]
        if item.output:
            lines += ["", "Your code printed:", "", "```text", item.output.replace("```", "ʼʼʼ"), "```"]
        lines.append("")
    return "\n".join(lines) + "\n"
