"""canvas.csv: Canvas's gradebook export with one assignment's column filled, parsed back."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.lms_download import LmsInfo, LmsStudent
from grader.records.results import RunInfo, SubmissionResult
from grader.records.rung import Rung
from grader.reporters import open_reporter
from grader.reporters.canvas import CanvasGradebookError

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
MAX = f"{BUNDLE.assignment.items_points:g}"  # the gradebook's points possible agree: no rescale note
RUN = RunInfo(5, "a.yaml", "class", "0", 2, "local", Rung("root-namespaces", True), "today")
GRADEBOOK = """\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Homework 1 (11),Attention (4242),Current Score
    Points Possible,,,,,10,@MAX@,(read only)
"Lovelace, Ada",1001,S1001,alovelace,A,7,,
"Hopper, Grace",1002,S1002,ghopper,A,8,,
"Babbage, Charles",1003,S1003,cbabbage,B,9,55,
"Student, Test",9999,,,A,,,
"""


def result(student: str, score: float) -> SubmissionResult:
    return SubmissionResult(student, score, BUNDLE.assignment.items_points, (), (), 0.0)


def write(tmp_path: Path, results: list[SubmissionResult], run: RunInfo = RUN, **options: object) -> list[dict]:
    book = tmp_path / "gradebook.csv"
    book.write_text(GRADEBOOK.replace("@MAX@", MAX), encoding="utf-8")
    reporter = open_reporter("canvas", tmp_path, **{"gradebook": book, "column": "Attention", **options})
    reporter.start(BUNDLE, run)
    for r in results:
        reporter.add(r)
    reporter.close()
    with open(tmp_path / "canvas.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_column_is_filled_for_students_matched_by_their_ids_and_nothing_else_is_written(tmp_path: Path):
    # A folder class: folders named by SIS login, SIS id or Canvas id; one matches nobody.
    results = [result("alovelace", 93), result("S1002", 41.5), result("someone", 12)]
    rows = write(tmp_path, results)
    assert list(rows[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention (4242)"]
    assert [(r["ID"], r["Attention (4242)"]) for r in rows] == [
        ("", MAX), ("1001", "93"), ("1002", "41.5"), ("1003", ""), ("9999", "")]
    reporter = open_reporter("canvas", tmp_path, gradebook=tmp_path / "gradebook.csv", column="Attention (4242)")
    reporter.start(BUNDLE, RUN)
    for r in results:
        reporter.add(r)
    lines = reporter.summary_lines()
    assert lines[0] == ("canvas.csv: column 'Attention (4242)' filled for 2 of 4 students of the gradebook; "
                        "2 without a submission left blank")
    assert lines[1] == "  submissions that match no student of the gradebook (1): someone"


def test_students_without_a_submission_get_zero_by_the_option(tmp_path: Path):
    rows = write(tmp_path, [result("1001", 80)], missing="zero")
    assert [(r["ID"], r["Attention (4242)"]) for r in rows[1:]] == [("1001", "80"), ("1002", "0"), ("1003", "0"),
                                                                   ("9999", "0")]


def test_a_canvas_download_matches_by_canvas_user_id(tmp_path: Path):
    lms = LmsInfo("canvas", "d.zip", (LmsStudent("lovelaceada_1001", "1001", "lovelaceada", False, ()),
                                      LmsStudent("hoppergrace_1002", "1002", "hoppergrace", True, ())), ())
    rows = write(tmp_path, [result("lovelaceada_1001", 70), result("hoppergrace_1002", 60)], replace(RUN, lms=lms))
    assert {r["ID"]: r["Attention (4242)"] for r in rows[1:]} == {"1001": "70", "1002": "60", "1003": "", "9999": ""}


@pytest.mark.parametrize(("options", "message"), [
    ({"column": "Nope"}, r"--canvas-column 'Nope' is not a column of .*gradebook.csv; give one of: "
                         r"'Homework 1 \(11\)'"),
    ({"gradebook": None}, r"--format canvas needs --canvas-gradebook FILE"),
    ({"missing": "maybe"}, r"--canvas-missing 'maybe': give one of blank, zero"),
])
def test_usage_mistakes_are_one_line(tmp_path: Path, options: dict[str, object], message: str):
    with pytest.raises(CanvasGradebookError, match=message):
        write(tmp_path, [], **options)


def test_a_file_that_is_no_gradebook_is_one_line(tmp_path: Path):
    other = tmp_path / "grades.csv"
    other.write_text("student,score\nada,1\n")
    with pytest.raises(CanvasGradebookError, match="not a Canvas gradebook export"):
        open_reporter("canvas", tmp_path, gradebook=other, column="score")


def test_the_gradebooks_cells_a_spreadsheet_would_run_are_written_as_text(tmp_path: Path):
    book = GRADEBOOK.replace('"Hopper, Grace"', '"=HYPERLINK(""http://evil.example"",""x"")"')
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "gradebook.csv").write_text(book.replace("@MAX@", MAX), encoding="utf-8")
    reporter = open_reporter("canvas", tmp_path, gradebook=tmp_path / "in" / "gradebook.csv", column="Attention")
    reporter.start(BUNDLE, RUN)
    reporter.add(result("S1002", -1.5))
    reporter.close()
    with open(tmp_path / "canvas.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert (rows[2]["Student"], rows[2]["Attention (4242)"]) == ('\'=HYPERLINK("http://evil.example","x")', "-1.5")
