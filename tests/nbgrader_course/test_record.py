"""End to end: nbgrader's gradebook is the record of ``grade --nbgrader``. After grade, regrade
and formgrader's edits (its API's handlers: a test cell overridden, a written score given and
cleared, a comment), ``nbgrader export`` and every output of ours give the same total for every
student; the autograded notebooks say why a point was lost; any student id grades; a notebook
padded with structure costs the trusted process what the size limit allows, not what it holds."""

from __future__ import annotations

import csv
import json
import subprocess
import tracemalloc
from pathlib import Path

import nbformat
import pytest
from nbgrader_support import (
    ASSIGNMENT,
    BUNDLE,
    NUMPY,
    QUESTIONS,
    answer,
    find_grade,
    generated_course,
    grade,
    nbgrader,
    set_manual,
    submit,
    with_test_cells,
)

from grader.nbgrader.autograded import build_notebook
from grader.nbgrader.course import open_course

pytest.importorskip("torch")
pytest.importorskip("nbgrader")

PADDING = 2 * 2**20  # bytes of empty objects in a markdown cell's metadata


def run(course: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return grade("--nbgrader", str(course), "--out", str(course / "out"), "--format", "json,csv", "--seed", "3",
                 "--jobs", "2", *extra)


def pad(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in doc["cells"] if c["cell_type"] == "markdown")
    cell["metadata"]["padding"] = [{}] * (PADDING // 3)
    path.write_text(json.dumps(doc, separators=(",", ":")), encoding="utf-8")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """carol loses points (softmax among them) and answers a question; a student is named as the
    assignment; mallory hands in a correct notebook padded with empty objects."""
    course = generated_course(tmp_path_factory.mktemp("record"))
    carol = submit(course, "carol", "Zoë Çelik")
    answer(carol, {QUESTIONS[0]: "n² scores, and n×n weights per head."})
    with_test_cells(carol)
    submit(course, ASSIGNMENT, "Ada Lovelace")
    pad(submit(course, "mallory", "Ada Lovelace") / f"{NUMPY}.ipynb")
    return course


@pytest.fixture(scope="module")
def graded(course: Path) -> subprocess.CompletedProcess[str]:
    return run(course)


def totals(course: Path) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Each student's total: results.json's, grades.csv's and ``nbgrader export``'s."""
    results = json.loads((course / "out" / "results.json").read_text(encoding="utf-8"))
    with open(course / "out" / "grades.csv", newline="", encoding="utf-8") as handle:
        ours = {row["student"]: float(row["score"]) for row in csv.DictReader(handle)}
    nbgrader(course, "export", "--to", str(course / "export.csv"))
    with open(course / "export.csv", newline="", encoding="utf-8") as handle:
        theirs = {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}
    return {s["student"]: s["score"] for s in results["students"]}, ours, theirs


def carol(course: Path) -> dict:
    results = json.loads((course / "out" / "results.json").read_text(encoding="utf-8"))
    return next(s for s in results["students"] if s["student"] == "carol")


def test_a_student_named_as_the_assignment_is_graded_and_no_message_names_a_temporary_folder(graded):
    assert graded.returncode == 0, graded.stderr
    assert "grader-nbgrader-class-" not in graded.stdout + graded.stderr
    assert "3 students graded" in graded.stdout


def test_a_padded_notebook_keeps_its_points_and_costs_what_its_size_allows(course: Path, graded):
    assert graded.returncode == 0, graded.stderr
    results, _, theirs = totals(course)
    assert results["mallory"] == results[ASSIGNMENT] == theirs["mallory"] > 0
    autograded = course / "autograded" / "mallory" / ASSIGNMENT / f"{NUMPY}.ipynb"
    assert autograded.stat().st_size < PADDING // 4  # formgrader gets the cells, not the padding
    tracemalloc.start()
    try:
        built = build_notebook(open_course(course, ASSIGNMENT), "mallory", NUMPY, tuple(QUESTIONS))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert built is not None and peak < 40 * PADDING  # the parse of the file, not nbformat's copies of it


def test_a_test_cell_carries_why_its_item_lost_points(course: Path, graded):
    assert graded.returncode == 0, graded.stderr
    lost = {item["name"]: item for item in carol(course)["items"] if item["earned"] < item["points"]}
    assert "softmax" in lost
    nb = nbformat.read(course / "autograded" / "carol" / ASSIGNMENT / f"{NUMPY}.ipynb", as_version=4)
    outputs = {c.metadata["nbgrader"]["grade_id"]: c.outputs for c in nb.cells
               if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}
    failed = outputs["test_softmax"]
    assert [o.output_type for o in failed] == ["error"] and failed[0].ename == "AssertionError"
    check = next(c for c in lost["softmax"]["checks"] if not c["passed"])
    assert check["message"][:60] in failed[0].evalue
    assert not outputs["test_causal_mask"]  # full marks: nothing to say
    nbgrader(course, "generate_feedback", ASSIGNMENT, "--student", "carol")
    page = (course / "feedback" / "carol" / ASSIGNMENT / f"{NUMPY}.html").read_text(encoding="utf-8")
    assert "softmax: " in page and "AssertionError" in page


def test_formgraders_edits_are_the_record_and_the_totals_agree_after_each(course: Path, graded):
    assert graded.returncode == 0, graded.stderr
    item = next(i for i in BUNDLE.assignment.items if i.name == "softmax")
    set_manual(course, "carol", "test_softmax", item.points - 0.5, extra_credit=0.5)  # an override
    set_manual(course, "carol", QUESTIONS[0], 2.0, "good")
    before = carol(course)["score"]
    assert run(course).returncode == 0
    results, ours, theirs = totals(course)
    assert results == pytest.approx(ours) and ours == pytest.approx(theirs)
    softmax = next(i for i in carol(course)["items"] if i["name"] == "softmax")
    assert softmax["earned"] == item.points and results["carol"] > before
    assert find_grade(course, "carol", "test_softmax")["auto_score"] < item.points  # the checks' own, kept

    set_manual(course, "carol", QUESTIONS[0], None)  # cleared in formgrader: needs grading again
    set_manual(course, "carol", QUESTIONS[1], None, "a comment alone changes no score")
    assert run(course).returncode == 0
    results, ours, theirs = totals(course)
    assert results == pytest.approx(ours) and ours == pytest.approx(theirs)
    row = next(r for r in carol(course)["written"] if r["question"] == QUESTIONS[0])
    assert row["earned"] is None and row["status"] != "graded"
    assert find_grade(course, "carol", QUESTIONS[0])["needs_manual_grade"]


def test_written_marks_beside_nbgrader_are_refused_in_one_line(course: Path, graded, tmp_path: Path):
    assert graded.returncode == 0, graded.stderr
    marks = tmp_path / "written.csv"
    marks.write_text("student,question,points,rubric,comment,digest\n", encoding="utf-8")
    gradebook = (course / "gradebook.db").read_bytes()
    refused = run(course, "--written", str(marks))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "formgrader" in refused.stderr and (course / "gradebook.db").read_bytes() == gradebook


def test_a_mark_typed_into_written_csv_is_not_lost_silently(course: Path, graded):
    assert graded.returncode == 0, graded.stderr
    path = course / "out" / "written.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    row = next(r for r in rows if r["student"] == "carol" and r["question"] == QUESTIONS[0])
    row["points"] = "0.5"  # no grader gave this one in formgrader
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    refused = run(course)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "written.csv: row" in refused.stderr and "formgrader" in refused.stderr
    assert "0.5" in path.read_text(encoding="utf-8")  # kept until the instructor moves it
