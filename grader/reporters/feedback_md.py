"""``feedback/<student>.md``: per item, which property failed and how; cells that raised;
what the student's code printed. One file per student, written as the result arrives."""

from __future__ import annotations

from pathlib import Path

from ..bundle import Bundle
from ..filenames import safe_name
from ..report import fmt_points
from ..results import RunInfo, SubmissionResult
from .text import NOT_ATTEMPTED, error_summary, not_attempted, ran_after


class FeedbackMarkdown:
    def __init__(self, out_dir: Path) -> None:
        self.folder = out_dir / "feedback"

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        (self.folder / feedback_file(result.student)).write_text(feedback(result), encoding="utf-8")

    def close(self) -> None:
        return None


def feedback_file(student: str) -> str:
    """The name of ``student``'s feedback file in ``feedback/``: safe whatever the id holds."""
    return f"{safe_name(student)}.md"


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
