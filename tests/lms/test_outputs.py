"""What a download adds to the default outputs: grades.csv's last column ``late``, and
``run.lms`` in results.json; a folder-per-student class gets neither."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.lms_download import LmsInfo, LmsStudent
from grader.records.results import RunInfo, zero_submission
from grader.records.rung import Rung
from grader.reporters import open_reporter

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
RUN = RunInfo(5, "a.yaml", "class", "0", 2, "local", Rung("root-namespaces", True), "today")
LMS = LmsInfo("canvas", "d.zip", (LmsStudent("ada_1", "1", "ada", True, (("attention_numpy", "ada_LATE_1_9_x"),)),
                                  LmsStudent("bo_2", "2", "bo", False, ()), LmsStudent("cy_3", "3", "cy", None, ())),
              ("a note",))


def run(out: Path, info: RunInfo) -> tuple[list[list[str]], dict]:
    reporters = [open_reporter(name, out) for name in ("csv", "json")]
    for reporter in reporters:
        reporter.start(BUNDLE, info)
    for student in ("cy_3", "ada_1", "bo_2"):
        for reporter in reporters:
            reporter.add(zero_submission(student, BUNDLE.assignment, "nothing"))
    for reporter in reporters:
        reporter.close()
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle)), json.loads((out / "results.json").read_text())


def test_a_download_adds_late_last_and_its_students_to_results_json(tmp_path: Path):
    rows, results = run(tmp_path, replace(RUN, lms=LMS))
    items = [item.name for item in BUNDLE.assignment.items] + [question.id for question in BUNDLE.assignment.written]
    assert rows[0] == ["student", "score", "max_score", *items, "late"]
    assert [(row[0], row[-1]) for row in rows[1:]] == [("ada_1", "true"), ("bo_2", "false"), ("cy_3", "")]
    lms = results["run"]["lms"]
    assert lms["system"] == "canvas" and lms["notes"] == ["a note"]
    assert lms["students"]["ada_1"] == {"id": "1", "name": "ada", "late": True,
                                        "files": {"attention_numpy": "ada_LATE_1_9_x"}}


def test_a_folder_class_keeps_the_contract_columns(tmp_path: Path):
    rows, results = run(tmp_path, RUN)
    assert rows[0] == ["student", "score", "max_score", *(item.name for item in BUNDLE.assignment.items),
                       *(question.id for question in BUNDLE.assignment.written)]
    assert "lms" not in results["run"]
