"""Write what a run produces, one student at a time: ``grades.csv``, ``results.json``,
a feedback file per student, and the summary printed at the end."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .config import Assignment
from .filenames import safe_name
from .results import SubmissionResult


def fmt_points(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class Summary:
    students: int
    mean: float
    max_score: float
    pass_rates: tuple[tuple[str, float], ...]  # item -> share of students with full points
    # "student: notebook ..." for each notebook missing, taken under another name or place,
    # or unreadable: the cases an instructor wants to hear about before the grades go out.
    file_problems: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # entries of the class folder that are not student folders

    def lines(self) -> list[str]:
        out = [f"{self.students} students graded; class mean {self.mean:.1f} / {fmt_points(self.max_score)}"]
        if self.students:
            width = max(len(name) for name, _ in self.pass_rates)
            out += [f"  {name:<{width}}  {rate:6.1%} full marks" for name, rate in self.pass_rates]
        if self.file_problems:
            out.append("notebooks missing, taken under another name or place, or unusable:")
            out += [f"  {line}" for line in self.file_problems]
        if self.skipped:
            out.append("skipped in the class folder (not student folders):")
            out += [f"  {line}" for line in self.skipped]
        return out


def file_problems(result: SubmissionResult) -> list[str]:
    """What went wrong with finding or reading each of a student's notebooks."""
    lines = []
    for nb in result.notebooks:
        if nb.path is None:
            lines.append(f"{result.student}: {nb.notebook} missing ({nb.failure})")
        elif nb.note:
            lines.append(f"{result.student}: {nb.notebook}: {nb.note}")
        if nb.path is not None and nb.failure:
            lines.append(f"{result.student}: {nb.notebook}: {nb.failure}")
    return lines


class ReportWriter:
    """Streams results to ``out_dir``; only one small row per student stays in memory."""

    def __init__(self, out_dir: Path, assignment: Assignment, run: dict[str, Any]):
        self.out_dir = out_dir
        self.assignment = assignment
        self.run = run
        self.rows: list[tuple[str, float, list[float]]] = []
        self.file_problems: list[str] = []
        self.feedback_files: dict[str, str] = {}  # student -> its feedback file, relative to out_dir
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "feedback").mkdir(exist_ok=True)
        self._json: TextIO = open(out_dir / "results.json", "w", encoding="utf-8")
        self._json.write('{"students": [\n')
        self._first = True

    def add(self, result: SubmissionResult) -> None:
        if not self._first:
            self._json.write(",\n")
        self._first = False
        json.dump(result.to_json(), self._json, ensure_ascii=False)
        self.file_problems += file_problems(result)
        by_item = {item.name: item.earned for item in result.items}
        self.rows.append((result.student, result.score, [by_item.get(i.name, 0.0) for i in self.assignment.items]))
        name = f"{safe_name(result.student)}.md"
        self.feedback_files[result.student] = f"feedback/{name}"
        (self.out_dir / "feedback" / name).write_text(feedback(result), encoding="utf-8")

    def close(self) -> Summary:
        self._json.write('\n],\n"feedback": ')
        json.dump(dict(sorted(self.feedback_files.items())), self._json, ensure_ascii=False, indent=1)
        self._json.write(',\n"run": ')
        json.dump(self.run, self._json, ensure_ascii=False, indent=1)
        self._json.write("}\n")
        self._json.close()
        self.rows.sort(key=lambda row: row[0])
        with open(self.out_dir / "grades.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["student", "score", "max_score", *(i.name for i in self.assignment.items)])
            for student, score, items in self.rows:
                writer.writerow([student, fmt_points(score), fmt_points(self.assignment.max_score),
                                 *(fmt_points(p) for p in items)])
        n = len(self.rows)
        rates = tuple(
            (item.name, sum(1 for _, _, items in self.rows if items[k] >= item.points) / n if n else 0.0)
            for k, item in enumerate(self.assignment.items)
        )
        mean = sum(score for _, score, _ in self.rows) / n if n else 0.0
        return Summary(n, mean, self.assignment.max_score, rates, tuple(sorted(self.file_problems)))


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
            lines += [f"> {nb.notebook}, {cell.replace('`', chr(39))} raised `{_one_line(error)}` while the "
                      "notebook ran (the following cells still ran).", ""]
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
        for c in item.checks:
            mark = "passed" if c.passed else "**failed**"
            detail = "" if c.passed else f": {c.message}"
            lines.append(f"- `{c.name}` ({fmt_points(c.points)} pt) {mark}{detail}")
        if item.output:
            lines += ["", "Your code printed:", "", "```text", item.output.replace("```", "ʼʼʼ"), "```"]
        lines.append("")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[-1] if text.strip() else text
    return first.replace("`", "'")[:300]
