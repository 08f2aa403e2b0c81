"""What a run writes for the person grading: written.csv (read back by ``--written``) and one
page per question; and the answers' crossing from the worker as JSON."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.answers import Answer, Mark, row_of
from grader.records.results import NotebookResult, RunInfo, SubmissionResult, zero_submission
from grader.records.rung import Rung
from grader.written.marks import Given, Marks, read_marks
from grader.written.merge import merge
from grader.written.outputs import WrittenOutputs

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
RUN = RunInfo(5, "a.yaml", "class", "0", 2, "local", Rung("root-namespaces", True), "today")
HOSTILE = '=HYPERLINK("http://x")\n<script>alert(1)</script> | **b** ``'


def result(student: str, text: str | None, mark: Mark | None = None) -> SubmissionResult:
    rows = (row_of(Answer.of(student, "quadratic_cost", text, "cut"), mark),
            row_of(Answer.of(student, "luong_compare", None), None))
    notebooks = (NotebookResult("attention_numpy", "attention_numpy.py", None, (), ""),)  # read, as any graded folder
    return SubmissionResult(student, 1.0, 159.0, (), notebooks, 0.5, rows, 4.0)


def test_results_with_answers_and_marks_round_trip_through_json():
    old = Mark("ada", "quadratic_cost", 2.0, ("time",), HOSTILE, Answer.of("ada", "quadratic_cost", "old").digest)
    for r in (result("ada", HOSTILE), result("ada", "new", old), result("ada", "old", old)):
        data = json.loads(json.dumps(r.to_json()))
        assert SubmissionResult.from_json(data) == r
    assert [w["status"] for w in data["written"]] == ["graded", "unanswered"] and data["written"][0]["earned"] == 2.0


def test_written_csv_lists_every_answer_to_fill_and_reads_back_as_the_marks(tmp_path: Path):
    ada = Answer.of("ada", "quadratic_cost", "mine")
    outputs = WrittenOutputs(tmp_path)
    outputs.start(BUNDLE, RUN)
    outputs.add(result("zoe", HOSTILE))
    outputs.add(result("ada", "mine", Mark("ada", "quadratic_cost", 1.5, ("time",), HOSTILE, ada.digest)))
    outputs.close()
    with open(tmp_path / "written.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["student"], r["question"], r["points"], r["status"]) for r in rows] == [
        ("ada", "quadratic_cost", "1.5", "graded"), ("ada", "luong_compare", "", "unanswered: no answer, 0 points"),
        ("zoe", "quadratic_cost", "", "awaiting"), ("zoe", "luong_compare", "", "unanswered: no answer, 0 points")]
    assert rows[2]["digest"] == Answer.of("zoe", "quadratic_cost", HOSTILE).digest
    assert rows[0]["comment"] == "'" + HOSTILE  # a formula shows as text in a spreadsheet
    marks = read_marks([tmp_path / "written.csv"], None, BUNDLE.assignment, {"ada", "zoe"})
    assert marks.given["ada", "quadratic_cost"].mark.comment == HOSTILE  # and reads back as written
    page = (tmp_path / "written" / "quadratic_cost.html").read_text(encoding="utf-8")
    assert "ada" in page and "zoe" in page and "<script>" not in page and "&lt;script&gt;" in page
    assert (tmp_path / "written" / "luong_compare.html").is_file()


def test_a_mark_of_a_folder_that_could_not_be_graded_is_kept_for_the_next_run(tmp_path: Path):
    # The worker lost the folder twice: its answers were not read (0 points, as its items), and the
    # mark given for its text stays in written.csv, to count again once the folder is graded.
    ada = Answer.of("ada", "quadratic_cost", "mine")
    given = Mark("ada", "quadratic_cost", 1.5, ("time",), "good", ada.digest)
    marks = Marks({("ada", "quadratic_cost"): Given(given, tmp_path / "written.csv", 2, carried=True)})
    failed = merge(zero_submission("ada", BUNDLE.assignment, "the worker was lost twice"), marks)
    assert [(row.status, row.earned) for row in failed.written] == [("unanswered", 0.0), ("unanswered", 0.0)]
    outputs = WrittenOutputs(tmp_path)
    outputs.start(BUNDLE, RUN)
    outputs.add(failed)
    outputs.close()
    kept = read_marks([], tmp_path / "written.csv", BUNDLE.assignment, {"ada"})
    assert kept.given["ada", "quadratic_cost"].mark == given
