"""``feedback/<student>.html``: the Markdown feedback's content as one self-contained page,
plus, for each item with a public example, the student's answer on it drawn beside what it
should be. One file per student, written as the result arrives; asks the engine to run the
public examples (``Needs.examples``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..assignment.config import WrittenQuestion
from ..records.results import ItemResult, Picture, SubmissionResult
from ..render.feedback_text import NOT_ATTEMPTED, error_summary, not_attempted, ran_after, written_points
from ..render.html import esc, page, picture_figure
from ..render.per_student import FilePerStudent
from ..render.words import fmt_points
from . import Needs, Reporter


class FeedbackHtml(FilePerStudent, Reporter):
    folder_name, suffix = "feedback", ".html"
    needs = Needs(examples=True)

    def text(self, result: SubmissionResult) -> str:
        return feedback_html(result, self.questions)


def feedback_html(result: SubmissionResult, questions: Sequence[WrittenQuestion] = ()) -> str:
    """The student's feedback page: score, each item's checks, pictures and printed output."""
    body = [f"<h1>Feedback for {esc(result.student)}</h1>",
            f"<p><strong>Score: {fmt_points(result.score)} / {fmt_points(result.max_score)}</strong></p>"]
    for nb in result.notebooks:
        for text in (nb.failure, nb.note):
            if text:
                body.append(f'<p class="problem"><strong>{esc(nb.notebook)}</strong>: {esc(text)}</p>')
        for cell, error in nb.cell_errors:
            body.append(f'<p class="problem">{esc(nb.notebook)}, {esc(cell)} raised '
                        f"<code>{esc(error_summary(cell, error))}</code>{esc(ran_after(nb, cell))}</p>")
    body += ["<table>", "<tr><th>item</th><th class=\"num\">points</th></tr>"]
    body += [f'<tr><td><a href="#{_anchor(item.name)}"><code>{esc(item.name)}</code></a></td><td class="num">'
             f"{fmt_points(item.earned)} / {fmt_points(item.points)}</td></tr>" for item in result.items]
    body.append("</table>")
    body += _written(result, questions)
    unusable = {nb.failure for nb in result.notebooks if nb.failure}
    for number, item in enumerate(result.items):
        body += _item(item, item.error in unusable and item.error is not None, number)
    return page(f"Feedback for {result.student}", body)


def _item(item: ItemResult, unusable: bool, number: int) -> list[str]:
    out = [f'<h2 id="{_anchor(item.name)}"><code>{esc(item.name)}</code>: '
           f"{fmt_points(item.earned)} / {fmt_points(item.points)}</h2>"]
    if unusable:  # said once above, for its notebook, not once per check
        return [*out, "<p>Not graded: its notebook could not be used (see above).</p>"]
    if not_attempted(item):  # once, not once per check
        return [*out, f"<p>{esc(NOT_ATTEMPTED[0].upper() + NOT_ATTEMPTED[1:])}.</p>"]
    out.append('<ul class="checks">')
    for c in item.checks:
        mark = '<span class="pass">&#10003; passed</span>' if c.passed else '<span class="fail">&#10007; failed</span>'
        # A message of many lines keeps them (in HTML a plain newline is a space).
        detail = "" if c.passed else f":<pre>{esc(c.message)}</pre>" if "\n" in c.message else f": {esc(c.message)}"
        out.append(f"<li>{mark} <code>{esc(c.name)}</code> ({fmt_points(c.points)} pt){detail}</li>")
    out.append("</ul>")
    out += [f'<p class="diagnosis">{esc(mistake)}</p>' for mistake in item.mistakes]
    if item.examples:
        out.append("<p>On the notebook's public example, your code gave (left) and should give (right):</p>")
        out += [picture_figure(p, f"scale-{number}-{k}") for k, p in enumerate(alike(item.examples))]
    if item.output:
        out += ["<p>Your code printed:</p>", f"<pre>{esc(item.output)}</pre>"]
    if item.output_dropped:
        out.append(f"<p>(and {item.output_dropped} more bytes, not kept)</p>")
    return out


def alike(pictures: tuple[Picture, ...]) -> list[Picture]:
    """``pictures`` with each run of pictures that show the same thing drawn once: numbered
    alike ("head 0: ...", "head 1: ..."), with the same answer of the student's (or none, for
    the same reason) and the same verdict. The one kept says so: "(all 4 heads alike)"."""
    out: list[Picture] = []
    runs: list[int] = []
    for p in pictures:
        last = out[-1] if out else None
        if last is not None and _same(last, p):
            runs[-1] += 1
        else:
            out.append(p)
            runs.append(1)
    kept = []
    for p, count in zip(out, runs, strict=True):
        if count > 1:
            word = re.match(r"(\w+) \d+: ", p.title)
            what = f"{word.group(1)}s" if word else "pictures"
            title = (p.title[word.end():] if word else p.title) + f" (all {count} {what} alike)"
            p = replace(p, title=title)
        kept.append(p)
    return kept


def _same(a: Picture, b: Picture) -> bool:
    numbered = re.sub(r"\d+", "#", a.title) == re.sub(r"\d+", "#", b.title)
    same_answer = a.student == b.student and a.wrong == b.wrong and a.note == b.note and a.kind == b.kind
    return numbered and same_answer and (a.student is None or a.expected == b.expected)


def _anchor(name: str) -> str:
    return "item-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def _written(result: SubmissionResult, questions: Sequence[WrittenQuestion]) -> list[str]:
    """The written answers' points, each grader's comment and what the reading found amiss."""
    if not result.written:
        return []
    out = ["<table>", '<tr><th>written answer</th><th class="num">points</th></tr>']
    out += [f'<tr><td><code>{esc(row.answer.question)}</code></td><td class="num">'
            f"{esc(written_points(row, questions))}</td></tr>" for row in result.written]
    out.append("</table>")
    for row in result.written:
        if row.comment:
            out.append(f"<p>Comment on <code>{esc(row.answer.question)}</code>:</p><pre>{esc(row.comment)}</pre>")
        if row.answer.note:
            out.append(f'<p class="problem"><code>{esc(row.answer.question)}</code>: {esc(row.answer.note)}</p>')
    return out
