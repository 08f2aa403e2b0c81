"""``report.html``: the class at a glance for the instructor, written at the end of the run.

A histogram of the scores; each item's and each check's failure rate, worst first; the items
left as the stub, apart; the most common failure messages, grouped when they differ only in
their numbers and shapes, with the students who got them; time per student with the slowest
and the stopped (timed-out or crashed) items; the students whose notebooks were missing or
unusable; a link to every student's feedback. Only a small row per student is kept until the end.
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..assignment.bundle import Bundle
from ..assignment.config import Assignment
from ..records.answers import AWAITING, CHANGED, GRADED, LABELS, UNANSWERED, WrittenCounts
from ..records.answers import count as count_written
from ..records.results import RunInfo, SubmissionResult
from ..regrade import read_regrade
from ..render.feedback_text import not_attempted
from ..render.html import esc, page, who
from ..render.mistakes import Diagnosed, diagnosed, failures_table, mistakes_section
from ..render.per_student import student_file
from ..render.words import GRADE_IN_FOLDER, GRADE_IN_FORMGRADER, counted, file_problems, fmt_points
from . import Needs, Reporter

SLOWEST = 10  # students listed by time
MESSAGES = 25  # failure messages listed
_STATE_ORDER = (GRADED, AWAITING, CHANGED, UNANSWERED)  # the table's columns, each answer in one
_NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


@dataclass(frozen=True)
class _Row:
    student: str
    score: float
    seconds: float
    full: frozenset[str]  # items with full marks
    failed: tuple[tuple[str, str, str], ...]  # (item, check, message) of each failed check
    unattempted: tuple[str, ...]  # items every check of which raised NotImplementedError: the stub
    stopped: tuple[tuple[str, str], ...]  # (item, why) for items the runner could not finish
    problems: tuple[str, ...]  # notebooks missing, renamed or unusable
    diagnosed: Diagnosed = ()  # the known mistakes that explain its failures
    written: tuple[tuple[str, str], ...] = ()  # (question, status) of each written answer


class ClassReport(Reporter):
    needs = Needs(formats=True)  # it links to the integrity report when the run writes one

    @classmethod
    def options(cls, args: argparse.Namespace, chosen: bool) -> dict[str, Any]:
        # Where the written answers are graded: formgrader, for an nbgrader course.
        return {"written_step": GRADE_IN_FORMGRADER if args.nbgrader is not None else GRADE_IN_FOLDER}

    def __init__(self, out_dir: Path, formats: Sequence[str] = (), written_step: str = GRADE_IN_FOLDER) -> None:
        self.out_dir = out_dir
        self.written_step = written_step  # where to grade the written answers: the pages, or formgrader
        self.formats = tuple(formats)
        self.rows: list[_Row] = []
        self.assignment: Assignment | None = None
        self.run: RunInfo | None = None

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.assignment, self.run = bundle.assignment, run
        self.out_dir.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        unusable = {nb.failure for nb in result.notebooks if nb.failure}
        failed, stopped, unattempted = [], [], []
        for item in result.items:
            if item.error is not None and item.error in unusable:
                continue  # listed once, with the notebook's problem
            if not_attempted(item):
                unattempted.append(item.name)  # counted once, apart from the failures
                continue
            failed += [(item.name, c.name, c.message) for c in item.checks if not c.passed]
            if item.error is not None:
                stopped.append((item.name, item.error))
        self.rows.append(_Row(result.student, result.score, result.seconds,
                              frozenset(i.name for i in result.items if i.earned >= i.points),
                              tuple(failed), tuple(unattempted), tuple(stopped), tuple(file_problems(result)),
                              diagnosed(result), tuple((w.answer.question, w.status) for w in result.written)))

    def close(self) -> None:
        assert self.assignment is not None and self.run is not None, "start() first"
        (self.out_dir / "report.html").write_text(
            class_report(self.assignment, self.run, self.rows, self.out_dir, integrity="integrity" in self.formats,
                         written_step=self.written_step),
            encoding="utf-8")


def class_report(assignment: Assignment, run: RunInfo, rows: list[_Row], out_dir: Path, integrity: bool = False,
                 written_step: str = GRADE_IN_FOLDER) -> str:
    rows = sorted(rows, key=lambda r: r.student)
    n = len(rows)
    mean = sum(r.score for r in rows) / n if n else 0.0
    body = [f"<h1>Class report: {esc(assignment.name)}</h1>",
            f"<p>{counted(n, 'student')} graded; class mean {mean:.1f} / {fmt_points(assignment.total_points)}; "
            f"seed {run.seed}; started {esc(run.started)}.</p>",
            *(['<p><a href="integrity.html">Who shared work</a>: the pairs of students whose submissions share '
               "uncommon code or wrong outputs, for a person to look.</p>"] if integrity else []),
            '<h2 id="scores">Scores</h2>', _histogram([r.score for r in rows], assignment.total_points)]
    body += _written(assignment, rows, written_step)
    body += _regrade(out_dir, n)
    body += _failure_rates(assignment, rows)
    body += _messages(rows)
    body += mistakes_section([(r.student, r.diagnosed) for r in rows])
    body += _times(rows)
    body += _problems(rows)
    body += _links(rows, out_dir)
    return page(f"Class report: {assignment.name}", body)


def _histogram(scores: list[float], max_score: float) -> str:
    """Ten bins of a tenth of the maximum each (the last includes full marks), as SVG bars."""
    bins = [0] * 10
    for score in scores:
        share = score / max_score if max_score else 0.0
        bins[min(9, max(0, int(share * 10)))] += 1
    tallest = max(bins) or 1
    width, height, bar = 560, 200, 52
    parts = []
    for k, count in enumerate(bins):
        h = round(160 * count / tallest)
        x = 30 + k * bar
        parts.append(f'<rect x="{x + 3}" y="{180 - h}" width="{bar - 6}" height="{h}" fill="#3b75af">'
                     f"<title>{counted(count, 'student')}</title></rect>")
        if count:
            parts.append(f'<text x="{x + bar // 2}" y="{174 - h}" text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + bar // 2}" y="195" text-anchor="middle" fill="#555">'
                     f"{fmt_points(round(k * max_score / 10, 2))}&#8211;</text>")
    parts.append(f'<line x1="30" y1="180" x2="{30 + 10 * bar}" y2="180" stroke="#888"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" id="histogram" width="{width + 40}" height="{height + 10}" '
            f'font-family="sans-serif" font-size="12" role="img" aria-label="histogram of scores">'
            + "".join(parts) + "</svg><p>Students per score range (points; a bar's range runs up to the next).</p>")


def _failure_rates(assignment: Assignment, rows: list[_Row]) -> list[str]:
    n = len(rows) or 1
    items = sorted(((sum(1 for r in rows if i.name not in r.full) / n, i.name) for i in assignment.items),
                   key=lambda pair: (-pair[0], pair[1]))
    failed = Counter((item, check) for r in rows for item, check in {(i, c) for i, c, _ in r.failed})
    checks = sorted(((count / n, item, check) for (item, check), count in failed.items()),
                    key=lambda t: (-t[0], t[1], t[2]))
    out = ['<h2 id="items">Items: share of students without full marks</h2>', "<table>",
           '<tr><th>item</th><th class="num">without full marks</th></tr>']
    out += [f'<tr><td><code>{esc(name)}</code></td><td class="num">{rate:.0%}</td></tr>' for rate, name in items]
    out += ["</table>", '<h2 id="checks">Checks: share of students who failed each</h2>']
    if not checks:
        return [*out, "<p>No check failed.</p>"]
    out += ["<table>", '<tr><th>item</th><th>check</th><th class="num">failed</th></tr>']
    out += [f'<tr><td><code>{esc(item)}</code></td><td><code>{esc(check)}</code></td>'
            f'<td class="num">{rate:.0%}</td></tr>' for rate, item, check in checks]
    return [*out, "</table>"]


def message_pattern(message: str) -> str:
    """``message`` with its numbers (sizes, indices, counts) replaced by ``#`` and its shapes
    and indices by ``(#)`` and ``[#]``, whatever their length: messages that differ only in
    those (the shapes of the calls) are one mistake."""
    return _SHAPE.sub(r"\1#\2", _NUMBER.sub("#", message))


_SHAPE = re.compile(r"([(\[])#(?:, ?#)*,?([)\]])")


def _messages(rows: list[_Row]) -> list[str]:
    """The items left as the stub, once per student and item; then the failure messages by
    item, the same mistake counted once per student: messages that differ only in their
    numbers and shapes (the sizes of the inputs, say), from any checks of the item, are one
    mistake."""
    out = ['<h2 id="unattempted">Items not attempted</h2>']
    stubs: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        for item in r.unattempted:
            stubs[item].append(r.student)
    if stubs:
        out += ["<p>Every check of the item raised <code>NotImplementedError</code>: the released stub, "
                "unchanged. These are not among the failures below.</p>", "<table>",
                '<tr><th class="num">students</th><th>item</th><th>who</th></tr>']
        out += [f'<tr><td class="num">{len(names)}</td><td><code>{esc(item)}</code></td><td>{who(sorted(names))}'
                "</td></tr>" for item, names in sorted(stubs.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
        out.append("</table>")
    else:
        out.append("<p>None: every student attempted every item.</p>")
    groups: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)  # -> student -> first message
    checks: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in rows:
        for item, check, message in r.failed:
            key = (item, message_pattern(message))
            groups[key].setdefault(r.student, message)
            checks[key].add(check)
    out.append('<h2 id="messages">Most common failures</h2>')
    if not groups:
        return [*out, "<p>No check failed.</p>"]
    out.append("<p>Messages that differ only in their numbers and shapes are counted together (one of them "
               "is shown, with the checks that gave them), once per student.</p>")
    return out + failures_table(groups, checks, ("message", "checks"), MESSAGES)


def _times(rows: list[_Row]) -> list[str]:
    seconds = sorted(r.seconds for r in rows)
    out = ['<h2 id="time">Time per student</h2>']
    if seconds:
        out.append(f"<p>Median {statistics.median(seconds):.2f} s, longest {seconds[-1]:.2f} s, "
                   f"total {sum(seconds):.1f} s (reading and grading one student's notebooks, in a worker).</p>")
    slowest = sorted(rows, key=lambda r: (-r.seconds, r.student))[:SLOWEST]
    out += ["<table>", '<tr><th>slowest students</th><th class="num">seconds</th></tr>']
    out += [f'<tr><td>{esc(r.student)}</td><td class="num">{r.seconds:.2f}</td></tr>' for r in slowest]
    out.append("</table>")
    stopped = [(r.student, item, why) for r in rows for item, why in r.stopped]
    out.append('<h2 id="stopped">Items stopped: time limit or crash</h2>')
    if not stopped:
        return [*out, "<p>None: every item ran to its end.</p>"]
    out += ["<table>", "<tr><th>student</th><th>item</th><th>why</th></tr>"]
    out += [f"<tr><td>{esc(s)}</td><td><code>{esc(i)}</code></td><td>{esc(w)}</td></tr>" for s, i, w in stopped]
    return [*out, "</table>"]


def _problems(rows: list[_Row]) -> list[str]:
    lines = sorted(line for r in rows for line in r.problems)
    out = ['<h2 id="notebooks">Notebooks missing, renamed or unreadable</h2>']
    if not lines:
        return [*out, "<p>None.</p>"]
    return [*out, "<ul>", *(f"<li>{esc(line)}</li>" for line in lines), "</ul>"]


def _links(rows: list[_Row], out_dir: Path) -> list[str]:
    """A link to each student's feedback files that this run wrote (HTML and Markdown)."""
    out = ['<h2 id="students">Students</h2>', "<table>",
           '<tr><th>student</th><th class="num">score</th><th>feedback</th></tr>']
    for r in rows:
        links = []
        for suffix, label in ((".html", "page"), (".md", "Markdown")):
            name = student_file(r.student, suffix)
            if (out_dir / "feedback" / name).is_file():
                links.append(f'<a href="feedback/{esc(quote(name))}">{label}</a>')
        out.append(f'<tr><td>{esc(r.student)}</td><td class="num">{fmt_points(r.score)}</td>'
                   f"<td>{' '.join(links) or 'none written'}</td></tr>")
    return [*out, "</table>"]


def _regrade(out_dir: Path, students: int) -> list[str]:
    """Who changed since the run this one replaced (its changes.csv), when it replaced one."""
    regrade = read_regrade(out_dir, students)
    if regrade is None:
        return []
    out = ['<h2 id="regrade">Regrade</h2>', f"<p>{esc(regrade.headline())}; the list is in changes.csv.</p>"]
    if regrade.changes:
        out += ["<ul>", *(f"<li>{esc(change.line())}</li>" for change in regrade.changes), "</ul>"]
    return out


def _written(assignment: Assignment, rows: list[_Row], step: str) -> list[str]:
    """Per written question: how many answers are in each state (``grader.records.answers``: each
    answer in exactly one), and where to grade those that await a grader (``step``)."""
    if not assignment.written:
        return []
    out = ['<h2 id="written">Written answers</h2>', "<table><tr><th>question</th><th class=\"num\">points</th>",
           *(f'<th class="num">{esc(LABELS[state])}</th>' for state in _STATE_ORDER), "</tr>"]
    total = WrittenCounts()
    for question in assignment.written:
        counts = count_written((status, question.points) for r in rows for q, status in r.written if q == question.id)
        total += counts
        out.append(f'<tr><td><code>{esc(question.id)}</code></td><td class="num">{fmt_points(question.points)}</td>'
                   + "".join(f'<td class="num">{getattr(counts, state)}</td>' for state in _STATE_ORDER) + "</tr>")
    out += ["</table>", f"<p>{esc(total.describe())}" + (f": {esc(step)}" if total.to_grade else "") + ".</p>"]
    return out
