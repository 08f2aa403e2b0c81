"""The minimal grade-by-question page: every student's answer, shown as text."""

from __future__ import annotations

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.render.written_page import question_page
from grader.written.model import Answer, row_of

QUESTION = load_bundle(DEFAULT_ASSIGNMENT).assignment.written[0]


def test_the_page_has_every_student_and_escapes_their_html():
    rows = [row_of(Answer.of("<i>ada</i>", QUESTION.id, "<script>alert(1)</script>"), None),
            row_of(Answer.of("zoë", QUESTION.id, None), None)]
    page = question_page(QUESTION, rows)
    assert "&lt;i&gt;ada&lt;/i&gt;" in page and "zoë" in page
    assert "<script>" not in page and "<i>ada" not in page
