"""``written/<question>.html``: every student's answer to one written question on one page,
for the person grading it. This is the minimal page (a table: student, answer, points,
comment); the grade-by-question page replaces it, with the same function."""

from __future__ import annotations

from collections.abc import Sequence

from ..assignment.config import WrittenQuestion
from ..summary import fmt_earned, fmt_points
from ..written.model import WrittenRow
from .html import esc, page


def question_page(question: WrittenQuestion, rows: Sequence[WrittenRow]) -> str:
    """The page of ``question``: its rubric, then each row's student, answer (escaped: it is
    the student's text), points and comment."""
    body = [f"<h1>{esc(question.id)} ({fmt_points(question.points)} points)</h1>", f"<p>{esc(question.question)}</p>"]
    if question.rubric:
        body.append("<ul>" + "".join(f"<li><code>{esc(part.name)}</code> ({fmt_points(part.points)}): "
                                     f"{esc(part.text)}</li>" for part in question.rubric) + "</ul>")
    body.append("<table><tr><th>student</th><th>answer</th><th>points</th><th>comment</th><th>status</th></tr>")
    for row in rows:
        text = row.answer.text if row.answer.text is not None else "(no answer)"
        comment = row.mark.comment if row.mark is not None else ""
        body.append(f"<tr><td>{esc(row.student)}</td><td><pre>{esc(text)}</pre></td><td>{fmt_earned(row.earned)}</td>"
                    f"<td>{esc(comment)}</td><td>{esc(row.status)}</td></tr>")
    body.append("</table>")
    return page(f"Written answers: {question.id}", body)
