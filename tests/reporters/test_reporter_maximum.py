"""Every output's score says what its maximum counts: the checks' points alone (an LMS's grade
column, Gradescope's, PrairieLearn's) or every point, the written answers' too (grades.csv, the
feedback files)."""

from __future__ import annotations

from pathlib import Path

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.answers import Answer, Mark, row_of
from grader.records.results import RunInfo, SubmissionResult
from grader.records.rung import Rung
from grader.reporters import open_reporter
from grader.reporters.gradescope import results as gradescope_results
from grader.reporters.moodle import feedback_lines

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
A = BUNDLE.assignment
RUN = RunInfo(5, "a.yaml", "class", "0", 2, "local", Rung("root-namespaces", True), "today")


def with_written(student: str) -> SubmissionResult:
    """147 of the checks' 155, one answer graded 2 of 2, one awaiting a grader: 149 of 159."""
    graded = Answer.of(student, "quadratic_cost", "n by n")
    rows = (row_of(graded, Mark(student, "quadratic_cost", 2.0, (), "", graded.digest)),
            row_of(Answer.of(student, "luong_compare", "dot"), None))
    return SubmissionResult(student, 149.0, A.total_points, (), (), 0.0, rows, A.written_points)


def test_canvas_says_its_column_holds_the_checks_points_not_grades_csvs_maximum(tmp_path: Path):
    book = tmp_path / "gradebook.csv"
    book.write_text("Student,ID,SIS Login ID,Attention\nPoints Possible,,,159\nAda,101,ada,\n", encoding="utf-8")
    reporter = open_reporter("canvas", tmp_path, gradebook=book, column="Attention")
    reporter.start(BUNDLE, RUN)
    reporter.add(with_written("ada"))
    reporter.close()
    assert reporter.summary_lines()[1] == (
        "  note: Canvas says the column is worth 159 points; the scores are out of 155, not rescaled (the checks' "
        "points; the written answers' 4 are in columns of their own: 159 in all, grades.csv's max_score)")


def test_moodle_gradescope_and_prairielearn_say_their_155_is_the_checks():
    student = with_written("ada")
    assert feedback_lines(student)[0] == (
        "Score: 147 / 155 for the checks; 149 / 159 with the written answers; 1 answer awaits a grader")
    output = gradescope_results(student)["output"].splitlines()
    assert output[0] == "Score: 147 / 155 for the checks"
    assert output[1] == ("Written answers (quadratic_cost, luong_compare; 4 points) are graded by hand in Gradescope, "
                         "beside this score: 159 points in all.")
    reporter = open_reporter("prairielearn", Path("unused"))
    assert reporter.render(student)["message"] == "Score: 147 / 155 for the checks"
    # A bundle without written answers has one maximum: its score line is as it was.
    plain = SubmissionResult("ada", 147.0, A.items_points, (), (), 0.0)
    assert feedback_lines(plain)[0] == "Score: 147 / 155"
    assert gradescope_results(plain)["output"] == "Score: 147 / 155"
