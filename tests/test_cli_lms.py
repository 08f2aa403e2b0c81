"""End to end: the real CLI on the sample class as Canvas and Moodle downloads, their gradebook
files parsed back against grades.csv, and regrades of the sample class."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.generate import lms_downloads as samples

pytest.importorskip("torch")

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
SAMPLE = BUNDLE.root / "sample_class"
LMS = BUNDLE.root / samples.FOLDER
MAX = f"{BUNDLE.assignment.items_points:g}"
STUDENTS = samples.uploaders(SAMPLE, BUNDLE.assignment.name, BUNDLE.assignment.notebooks)


def assignment_copy(tmp: Path, name: str = "assignment.yaml", stable_points: int | None = None) -> Path:
    """The bundle with a short time limit (the hanging student costs little); optionally the
    softmax check ``stable_for_large_inputs`` worth other points (a changed check)."""
    config = yaml.safe_load(DEFAULT_ASSIGNMENT.read_text())
    config["limits"]["item_seconds"] = 4
    if stable_points is not None:
        config["items"]["softmax"]["checks"]["stable_for_large_inputs"] = stable_points
    config["bundle"] = {**config["bundle"], "checks": str(BUNDLE.root / "checks"),
                        "reference": str(BUNDLE.reference_dir), "catalogue": str(BUNDLE.catalogue_dir)}
    path = tmp / name
    path.write_text(yaml.safe_dump(config))
    return path


def grade(*args: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", *map(str, args), "--jobs", "2", "--no-progress"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def scores(out: Path) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in read_csv(out / "grades.csv")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    tmp = tmp_path_factory.mktemp("lms")
    assignment = assignment_copy(tmp)
    found = {}
    found["folder"] = (tmp / "folder", grade(SAMPLE, "--out", tmp / "folder", "--seed", 11,
                                             "--assignment", assignment).stdout)
    found["canvas"] = (tmp / "canvas", grade(LMS / samples.CANVAS_ZIP, "--out", tmp / "canvas", "--seed", 11,
                                             "--assignment", assignment, "--format", "csv,json,canvas,moodle,report",
                                             "--canvas-gradebook", LMS / samples.GRADEBOOK,
                                             "--canvas-column", "Attention").stdout)
    unpacked = tmp / "moodle download"  # the unpacked folder, as an instructor's unzip leaves it
    with zipfile.ZipFile(LMS / samples.MOODLE_ZIP) as archive:
        archive.extractall(unpacked)
    found["moodle"] = (tmp / "moodle", grade(unpacked, "--out", tmp / "moodle", "--seed", 11,
                                             "--assignment", assignment, "--format", "csv,json,moodle").stdout)
    return found


def test_canvas_and_moodle_downloads_grade_as_the_folder_class(runs):
    folder = scores(runs["folder"][0])
    canvas, moodle = scores(runs["canvas"][0]), scores(runs["moodle"][0])
    items = ["score", *(item.name for item in BUNDLE.assignment.items)]
    assert len(canvas) == len(moodle) == len(folder) == len(STUDENTS)
    for student in STUDENTS:
        expected = [folder[student.folder][k] for k in items]
        assert [canvas[student.canvas_student][k] for k in items] == expected, student.folder
        assert [moodle[student.moodle_student][k] for k in items] == expected, student.folder


def test_late_is_a_column_of_lms_runs_only_and_is_in_results_json(runs):
    assert "late" not in read_csv(runs["folder"][0] / "grades.csv")[0]
    canvas = scores(runs["canvas"][0])
    late = [STUDENTS[1].canvas_student]  # the generator makes the second student late
    assert [s for s, row in canvas.items() if row["late"] == "true"] == late
    assert {row["late"] for s, row in canvas.items() if s not in late} == {"false"}
    assert {row["late"] for row in scores(runs["moodle"][0]).values()} == {""}  # Moodle's download does not say
    lms = json.loads((runs["canvas"][0] / "results.json").read_text())["run"]["lms"]
    assert lms["system"] == "canvas"
    assert [s for s, info in lms["students"].items() if info["late"]] == late
    assert all(row["score"] == str(int(float(row["score"]))) for row in canvas.values())  # not penalised
    assert canvas[STUDENTS[1].canvas_student]["score"] == scores(runs["folder"][0])[STUDENTS[1].folder]["score"]


def test_the_newest_resubmission_is_graded_and_the_summary_says_which(runs):
    out, stdout = runs["canvas"]
    first = STUDENTS[0]
    taken = f"{first.sortable}_{first.canvas_id}_50002_attention_numpy-1.ipynb"
    assert f"{first.canvas_student}: attention_numpy: graded {taken}, the newest of 2" in stdout
    files = json.loads((out / "results.json").read_text())["run"]["lms"]["students"][first.canvas_student]["files"]
    assert files["attention_numpy"].endswith("_attention_numpy-1.ipynb")
    assert scores(out)[first.canvas_student]["score"] == MAX


def test_canvas_csv_parses_back_and_agrees_with_grades_csv(runs):
    out, stdout = runs["canvas"]
    grades = scores(out)
    rows = read_csv(out / "canvas.csv")
    assert list(rows[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", samples.column(BUNDLE)]
    assert rows[0]["Student"].strip() == "Points Possible"
    by_id = {row["ID"]: row[samples.column(BUNDLE)] for row in rows[1:]}
    for student in STUDENTS:
        assert by_id.pop(student.canvas_id) == grades[student.canvas_student]["score"]
    assert by_id == {"1007": "", "9999": ""}  # no submission: left blank (the default)
    assert f"column '{samples.column(BUNDLE)}' filled for {len(STUDENTS)} of {len(STUDENTS) + 2} students" in stdout


def test_moodle_csv_parses_back_and_agrees_with_grades_csv(runs):
    for run, key in (("moodle", "moodle_student"), ("canvas", "canvas_student")):
        out = runs[run][0]
        grades = scores(out)
        rows = read_csv(out / "moodle.csv")
        assert list(rows[0]) == ["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"]
        assert len(rows) == len(grades)
        by_identifier = {row["Identifier"]: row for row in rows}
        for student in STUDENTS:
            identifier = f"Participant {student.moodle_id}" if run == "moodle" else getattr(student, key)
            row = by_identifier[identifier]
            assert row["Grade"] == grades[getattr(student, key)]["score"]
            assert row["Maximum Grade"] == MAX
            assert row["Feedback comments"].startswith(f"Score: {row['Grade']} / {MAX}")


def test_a_regrade_with_a_new_seed_changes_nobody_and_says_so(runs, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(runs["canvas"][0], out)
    proc = grade(LMS / samples.CANVAS_ZIP, "--out", out, "--seed", 12, "--assignment", assignment_copy(tmp_path),
                 "--format", "csv,json,report")
    assert f"regrade: no change: all {len(STUDENTS)} students have the points of the earlier run (seed 11, now 12)" \
        in proc.stdout
    assert read_csv(out / "changes.csv") == []
    assert "regrade: no change" in (out / "report.html").read_text()


def test_a_regrade_with_a_changed_check_lists_exactly_the_students_who_moved(runs, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(runs["folder"][0], out)
    before = json.loads((out / "results.json").read_text())
    passed = sorted(s["student"] for s in before["students"] for item in s["items"] if item["name"] == "softmax"
                    for c in item["checks"] if c["name"] == "stable_for_large_inputs" and c["passed"])
    assert 0 < len(passed) < len(STUDENTS)
    proc = grade(SAMPLE, "--out", out, "--seed", 13, "--assignment", assignment_copy(tmp_path, stable_points=7),
                 "--format", "csv,json,report")
    changes = read_csv(out / "changes.csv")
    assert [row["student"] for row in changes] == passed
    old = {s: float(row["score"]) for s, row in scores(runs["folder"][0]).items()}
    for row in changes:
        assert (float(row["old"]), float(row["new"]), row["difference"], row["items"]) == (
            old[row["student"]], old[row["student"]] + 5, "+5", "softmax +5")
    assert f"regrade: {len(passed)} of {len(STUDENTS)} students changed, the largest by +5" in proc.stdout
    report = (out / "report.html").read_text()
    assert f"regrade: {len(passed)} of {len(STUDENTS)} students changed" in report
    assert all(student in report for student in passed)


def usage(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "grade", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize(("args", "message"), [
    (["--canvas-column", "A"], "error: grade: --canvas-gradebook and --canvas-column go with --format canvas"),
    (["--format", "canvas"], "error: --format canvas needs --canvas-gradebook FILE"),
    (["--format", "canvas", "--canvas-gradebook", LMS / samples.GRADEBOOK, "--canvas-column", "Nope"],
     "error: --canvas-column 'Nope' is not a column of"),
])
def test_canvas_usage_mistakes_are_one_line(tmp_path: Path, args: list[object], message: str):
    proc = usage(LMS / samples.CANVAS_ZIP, "--out", tmp_path / "out", *args)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith(message), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_broken_zip_is_one_line(tmp_path: Path):
    broken = tmp_path / "submissions.zip"
    broken.write_bytes((LMS / samples.CANVAS_ZIP).read_bytes()[:5000])
    proc = usage(broken, "--out", tmp_path / "out")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {broken}: not a readable zip (File is not a zip file); download it again"
