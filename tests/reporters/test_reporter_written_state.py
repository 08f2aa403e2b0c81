"""Each written answer in its one state: the feedback files show a mark that counts with its
comment, no answer as 0 points, and never a comment given for a text no longer there; the run's
summary and the class report count the states alike, and point to where the course grades them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.answers import Answer, Mark, answer_digest, row_of
from grader.records.results import RunInfo, SubmissionResult
from grader.records.rung import Rung
from grader.render.words import GRADE_IN_FOLDER, GRADE_IN_FORMGRADER
from grader.reporters import open_reporter
from grader.reporters.feedback_html import feedback_html
from grader.reporters.feedback_md import feedback
from grader.run.summary import Tally

A = load_bundle(DEFAULT_ASSIGNMENT).assignment
RUN = RunInfo(5, "a.yaml", "class", "0", 2, "local", Rung("root-namespaces", True), "today")


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


def test_the_summary_and_the_class_report_count_alike_and_point_to_where_the_course_grades(tmp_path: Path):
    rows = (row_of(Answer.of("ada", "quadratic_cost", "n by n"), None),
            row_of(Answer.of("ada", "luong_compare", ""), None))
    ada = SubmissionResult("ada", 0.0, A.total_points, (), (), 0.0, rows, A.written_points)
    tally = Tally(A)
    tally.add(ada)
    counts = "2 written answers: 1 awaits a grader (2 points), 1 with no answer (0 points)"
    assert f"{counts}: {GRADE_IN_FOLDER}" in tally.summary().lines()
    assert f"{counts}: {GRADE_IN_FORMGRADER}" in replace(tally.summary(), written_step=GRADE_IN_FORMGRADER).lines()
    report = open_reporter("report", tmp_path, written_step=GRADE_IN_FORMGRADER)
    report.start(load_bundle(DEFAULT_ASSIGNMENT), RUN)
    report.add(ada)
    report.close()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert f"<p>{counts}: grade them in formgrader, then grade again with --nbgrader.</p>" in page
