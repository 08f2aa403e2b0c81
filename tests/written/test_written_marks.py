"""written.csv read back: every fault a one-line error naming the file and the row, and the
marks merged into each result (graded, awaiting, changed since graded, missing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.answers import WRITTEN_CSV_COLUMNS, Answer, Mark, row_of
from grader.records.results import NotebookResult, SubmissionResult
from grader.render.csv_cells import csv_text
from grader.written.marks import WrittenError, read_marks
from grader.written.merge import merge

ASSIGNMENT = load_bundle(DEFAULT_ASSIGNMENT).assignment
STUDENTS = {"ada", "=grace"}
ADA = Answer.of("ada", "quadratic_cost", "n times n scores")


def marks_file(tmp_path: Path, *rows: list[str], name: str = "marks.csv") -> Path:
    path = tmp_path / name
    path.write_text(csv_text([list(WRITTEN_CSV_COLUMNS), *rows]), encoding="utf-8")
    return path


def test_a_filled_row_is_a_mark_and_an_empty_one_is_none(tmp_path: Path):
    path = marks_file(tmp_path, ["ada", "quadratic_cost", "1.5", "time; memory", "=SUM(A1)\nsee me", ADA.digest],
                      ["=grace", "quadratic_cost", "", "", "", "0123"])
    marks = read_marks([path], None, ASSIGNMENT, STUDENTS)
    assert marks.given.keys() == {("ada", "quadratic_cost")}
    given = marks.given["ada", "quadratic_cost"]
    assert given.mark == Mark("ada", "quadratic_cost", 1.5, ("time", "memory"), "=SUM(A1)\nsee me", ADA.digest)
    assert given.where == f"{path}: row 2" and not given.carried


@pytest.mark.parametrize("row, why", [
    (["bob", "quadratic_cost", "1", "", "", "d"], "row 2: unknown student 'bob': no such folder in the class"),
    (["ada", "essay", "1", "", "", "d"],
     "row 2: unknown question 'essay' (the bundle's: quadratic_cost, luong_compare)"),
    (["ada", "quadratic_cost", "two", "", "", "d"], "row 2: points 'two' is not a number"),
    (["ada", "quadratic_cost", "nan", "", "", "d"], "row 2: points 'nan' is not a number"),
    (["ada", "quadratic_cost", "-1", "", "", "d"], "row 2: points -1 is negative"),
    (["ada", "quadratic_cost", "2.5", "", "", "d"], "row 2: points 2.5 is over the question's 2"),
    (["ada", "quadratic_cost", "1", "time;style", "", "d"],
     "row 2: unknown rubric part 'style' (the question's: time, memory)"),
    (["ada", "quadratic_cost", "1", "", "", ""], "row 2: no digest"),
])
def test_a_faulty_row_is_one_line_naming_the_file_and_the_row(tmp_path: Path, row: list[str], why: str):
    path = marks_file(tmp_path, row)
    with pytest.raises(WrittenError) as caught:
        read_marks([path], None, ASSIGNMENT, STUDENTS)
    message = str(caught.value)
    assert message.startswith(f"{path}: {why}") and "\n" not in message


def test_a_file_that_is_not_a_written_csv_or_marks_twice_is_an_error(tmp_path: Path):
    other = tmp_path / "grades.csv"
    other.write_text("student,score\nada,1\n", encoding="utf-8")
    with pytest.raises(WrittenError, match="grades.csv: row 1: no column question, points, rubric, comment"):
        read_marks([other], None, ASSIGNMENT, STUDENTS)
    twice = marks_file(tmp_path, ["ada", "quadratic_cost", "1", "", "", "d"],
                       ["ada", "quadratic_cost", "2", "", "", "d"])
    with pytest.raises(WrittenError, match="row 3: .* is already marked in row 2"):
        read_marks([twice], None, ASSIGNMENT, STUDENTS)
    first = marks_file(tmp_path, ["ada", "quadratic_cost", "1", "", "", "d"], name="a.csv")
    second = marks_file(tmp_path, ["ada", "quadratic_cost", "2", "", "", "d"], name="b.csv")
    with pytest.raises(WrittenError, match=r"b.csv: row 2: .* is marked differently in .*a.csv: row 2"):
        read_marks([first, second], None, ASSIGNMENT, STUDENTS)
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(WrittenError, match="not a UTF-8 CSV file"):
        read_marks([binary], None, ASSIGNMENT, STUDENTS)


def test_the_previous_runs_marks_are_carried_under_the_given_ones_and_strays_dropped(tmp_path: Path):
    previous = marks_file(tmp_path, ["ada", "quadratic_cost", "1", "", "", "d1"],
                          ["gone", "quadratic_cost", "2", "", "", "d2"], ["ada", "essay", "2", "", "", "d3"],
                          name="written.csv")
    given = marks_file(tmp_path, ["ada", "quadratic_cost", "2", "", "", "d4"])
    marks = read_marks([], previous, ASSIGNMENT, STUDENTS)
    assert marks.given["ada", "quadratic_cost"].carried and marks.dropped == ("gone/quadratic_cost", "ada/essay")
    assert marks.summary_lines() == ["written.csv: 2 marks of the previous run dropped (the student or question "
                                     "is no longer graded): gone/quadratic_cost, ada/essay"]
    assert read_marks([given], previous, ASSIGNMENT, STUDENTS).given["ada", "quadratic_cost"].mark.points == 2


def result(*answers: Answer, read: bool = True) -> SubmissionResult:
    notebooks = (NotebookResult("attention_numpy", "attention_numpy.ipynb", None, (), ""),) if read else ()
    return SubmissionResult("ada", 100.0, 159.0, (), notebooks, 0.0, tuple(row_of(a, None) for a in answers), 4.0)


def test_merge_counts_a_mark_for_this_text_and_flags_one_for_another(tmp_path: Path):
    luong = Answer.of("ada", "luong_compare", None)
    path = marks_file(tmp_path, ["ada", "quadratic_cost", "1.5", "time", "", ADA.digest])
    merged = merge(result(ADA, luong), read_marks([path], None, ASSIGNMENT, STUDENTS))
    assert [row.status for row in merged.written] == ["graded", "unanswered"]
    assert merged.score == 101.5 and merged.items_score == 100 and merged.items_max == 155
    # The same mark, carried from the previous run, for a text the student has changed since.
    changed = Answer.of("ada", "quadratic_cost", "n times n scores, in time and memory")
    previous = marks_file(tmp_path, ["ada", "quadratic_cost", "1.5", "time", "", ADA.digest], name="written.csv")
    flagged = merge(result(changed, luong), read_marks([], previous, ASSIGNMENT, STUDENTS))
    assert [row.status for row in flagged.written] == ["changed", "unanswered"] and flagged.score == 100
    assert flagged.written[0].earned is None and flagged.written[0].mark is not None


def test_a_given_mark_for_another_text_is_an_error_naming_the_row(tmp_path: Path):
    changed = Answer.of("ada", "quadratic_cost", "a new text")
    path = marks_file(tmp_path, ["ada", "quadratic_cost", "1", "", "", ADA.digest])
    marks = read_marks([path], None, ASSIGNMENT, STUDENTS)
    with pytest.raises(WrittenError, match=rf"^{path}: row 2: the answer of 'ada' to 'quadratic_cost' has changed "
                                           r"since it was graded"):
        merge(result(changed), marks)
    # A folder that could not be graded this time (nothing read): flagged, not an error.
    assert merge(result(changed, read=False), marks).written[0].status == "changed"
