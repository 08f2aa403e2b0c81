"""moodle.csv: identifier, grade and the feedback's first lines, parsed back."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.lms_download import LmsInfo, LmsStudent
from grader.records.results import CheckResult, ItemResult, NotebookResult, RunInfo, SubmissionResult, zero_submission
from grader.records.rung import Rung
from grader.reporters import open_reporter
from grader.reporters.moodle import FEEDBACK_LINES, feedback_lines

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
A = BUNDLE.assignment
MAX, BUT_SOFTMAX = f"{A.items_points:g}", f"{A.items_points - A.item('softmax').points:g}"
RUN = RunInfo(5, "a.yaml", "class", "0", 2, "local", Rung("root-namespaces", True), "today")


def result(student: str, failing: tuple[str, ...] = ()) -> SubmissionResult:
    items = []
    for item in A.items:
        lost = item.name in failing
        checks = tuple(CheckResult(n, p, 0.0 if lost else p, not lost, f"{item.name} broke" if lost else "")
                       for n, p in item.checks)
        items.append(ItemResult(item.name, item.notebook, item.points, sum(c.earned for c in checks), checks, "", 0,
                                None))
    notebooks = (NotebookResult("attention_numpy", "attention_numpy.ipynb", None, (), ""),)
    return SubmissionResult(student, sum(i.earned for i in items), A.items_points, tuple(items), notebooks, 0.1)


def read(out: Path, results: list[SubmissionResult], run: RunInfo = RUN) -> list[dict[str, str]]:
    reporter = open_reporter("moodle", out)
    reporter.start(BUNDLE, run)
    for r in results:
        reporter.add(r)
    reporter.close()
    with open(out / "moodle.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_folder_class_is_identified_by_its_student_ids(tmp_path: Path):
    results = [result("zoe@uni.edu", ("softmax",)), result("ada@uni.edu")]
    rows = read(tmp_path, results)
    assert [(r["Identifier"], r["Full name"], r["Grade"], r["Maximum Grade"]) for r in rows] == [
        ("ada@uni.edu", "ada@uni.edu", MAX, MAX), ("zoe@uni.edu", "zoe@uni.edu", BUT_SOFTMAX, MAX)]
    assert rows[0]["Feedback comments"] == f"Score: {MAX} / {MAX}"
    assert rows[1]["Feedback comments"] == f"Score: {BUT_SOFTMAX} / {MAX}<br>softmax: 0 / 10: softmax broke"


def test_a_moodle_download_is_identified_by_participant(tmp_path: Path):
    lms = LmsInfo("moodle", "d.zip", (LmsStudent("Ada Lovelace_240101", "240101", "Ada Lovelace", None, ()),), ())
    rows = read(tmp_path, [result("Ada Lovelace_240101")], replace(RUN, lms=lms))
    assert (rows[0]["Identifier"], rows[0]["Full name"]) == ("Participant 240101", "Ada Lovelace")


def test_the_feedback_is_its_first_lines_only():
    many = feedback_lines(result("x", tuple(item.name for item in A.items)))
    assert len(many) == FEEDBACK_LINES
    assert many[-1] == f"... and {len(A.items) - FEEDBACK_LINES + 2} more: see your feedback file"
    missing = feedback_lines(zero_submission("x", A, "attention_numpy.ipynb was not submitted"))
    # Grade is the checks' alone: the line says so, beside the whole with the (unanswered) written answers.
    assert missing[0] == f"Score: 0 / {MAX} for the checks; 0 / {A.total_points:g} with the written answers"


def test_a_name_a_spreadsheet_would_run_is_written_as_text(tmp_path: Path):
    name = '=HYPERLINK("http://evil.example","full marks")'
    lms = LmsInfo("moodle", "d.zip", (LmsStudent(f"{name}_7", "7", name, None, ()),), ())
    rows = read(tmp_path, [result(f"{name}_7", ("softmax",)), result("-1+cmd")], replace(RUN, lms=lms))
    assert [(r["Identifier"], r["Full name"], r["Grade"]) for r in rows] == [
        ("'-1+cmd", "'-1+cmd", MAX), ("Participant 7", f"'{name}", BUT_SOFTMAX)]
