"""The feedback files show each written answer in its one state: a mark that counts with its
comment, no answer as 0 points, and never a comment given for a text no longer there."""

from __future__ import annotations

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.reporters.feedback_html import feedback_html
from grader.reporters.feedback_md import feedback
from grader.results import SubmissionResult
from grader.written.model import Answer, Mark, answer_digest, row_of

A = load_bundle(DEFAULT_ASSIGNMENT).assignment


def test_no_answer_is_0_points_and_an_earlier_texts_comment_is_not_shown():
    # ada's first answer was graded, and she has since emptied the cell (left it as released).
    removed = row_of(Answer.of("ada", "quadratic_cost", "YOUR ANSWER HERE"),
                     Mark("ada", "quadratic_cost", 2.0, (), "an earlier text's comment", answer_digest("n by n")))
    never = row_of(Answer.of("ada", "luong_compare", None), None)
    result = SubmissionResult("ada", 100.0, A.total_points, (), (), 0.0, (removed, never), A.written_points)
    markdown, html = feedback(result, A.written), feedback_html(result, A.written)
    assert all(f"| `{q}` | 0 / 2 (no answer) |" in markdown for q in ("quadratic_cost", "luong_compare"))
    assert '<td class="num">0 / 2 (no answer)</td>' in html and "awaits a grader" not in markdown + html
    assert "earlier text" not in markdown + html
