"""End to end: ``grade --nbgrader`` on a real nbgrader course folder, the scores read back
through ``nbgrader export`` and nbgrader's ``Gradebook`` API."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest
import yaml
from bundle_support import BUNDLE_PATH
from nbgrader_support import ASSIGNMENT, BUNDLE, SAMPLE, generated_course, grade, nbgrader, submit

pytest.importorskip("torch")
pytest.importorskip("nbgrader")

# nbgrader id -> the sample student whose notebooks they submit (the CLI's test and this one
# expect the total sample_students.yaml declares for them: the sample_grades fixture)
STUDENTS = {"ada": ("Ada Lovelace",), "zoe": ("Zoë Çelik",), "grace": ("Grace Hopper",)}


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course as an instructor has it: generated with nbgrader, three submissions (one from a
    student already in the gradebook), and one student who submitted only another assignment."""
    course = generated_course(tmp_path_factory.mktemp("course"))
    nbgrader(course, "db", "student", "add", "ada", "--last-name=Lovelace", "--first-name=Ada")
    for student, (sample,) in STUDENTS.items():
        submit(course, student, sample)
    (course / "submitted" / "ada" / ASSIGNMENT / "timestamp.txt").write_text("2026-01-05 10:00:00.000000 UTC\n")
    (course / "submitted" / "dave" / "hw0").mkdir(parents=True)
    return course


@pytest.fixture(scope="module")
def graded(course: Path) -> subprocess.CompletedProcess[str]:
    return grade("--nbgrader", str(course), "--assignment-id", ASSIGNMENT, "--seed", "3", "--jobs", "2")


def test_the_run_succeeds_and_writes_its_reports_beside_the_course(course: Path, graded):
    assert graded.returncode == 0, graded.stderr
    assert "3 students graded" in graded.stdout and "nbgrader gradebook" in graded.stdout
    out = course / "grader-reports" / ASSIGNMENT
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["ada.md", "grace.md", "zoe.md"]


def test_writing_the_gradebook_warns_nothing(graded):
    # nbgrader's add_submission under SQLAlchemy 2 warned three SAWarnings; only our lines are left.
    assert graded.returncode == 0 and "Warning" not in graded.stderr, graded.stderr


def test_nbgrader_export_reads_our_scores(course: Path, graded, sample_grades):
    assert graded.returncode == 0, graded.stderr
    nbgrader(course, "export", "--to", str(course / "export.csv"))
    with open(course / "export.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle) if row["assignment"] == ASSIGNMENT}
    assert set(rows) == set(STUDENTS)  # dave submitted no attention: not graded, not added
    for student, (sample,) in STUDENTS.items():
        total = sum(sample_grades(3)[sample].values())
        assert float(rows[student]["score"]) == total, (student, rows[student])
        # nbgrader counts the written answers too (0 until a person grades them in formgrader)
        assert float(rows[student]["max_score"]) == BUNDLE.assignment.items_points + BUNDLE.assignment.written_points
    assert rows["ada"]["last_name"] == "Lovelace"  # the student already there was kept, not replaced
    assert rows["ada"]["timestamp"].startswith("2026-01-05 10:00:00")


def test_each_grade_cell_holds_its_items_score(course: Path, graded):
    from nbgrader.api import Gradebook

    assert graded.returncode == 0, graded.stderr
    data = json.loads((course / "grader-reports" / ASSIGNMENT / "results.json").read_text(encoding="utf-8"))
    ours = {s["student"]: {i["name"]: i["earned"] for i in s["items"]} for s in data["students"]}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "attention-course") as gradebook:
        assert {s.id for s in gradebook.students} == {"ada", "zoe", "grace"}
        for student in STUDENTS:
            submission = gradebook.find_submission(ASSIGNMENT, student)
            for item in BUNDLE.assignment.items:
                cell = gradebook.find_grade(f"test_{item.name}", item.notebook, ASSIGNMENT, student)
                assert cell.auto_score == ours[student][item.name] and cell.max_score == item.points
                assert not cell.needs_manual_grade
            assert submission.score == sum(ours[student].values())
        assert gradebook.find_grade("test_softmax", "attention_numpy", ASSIGNMENT, "zoe").auto_score < 10


def test_a_manual_score_survives_a_new_run_and_is_flagged(course: Path, graded, tmp_path: Path):
    from nbgrader.api import Gradebook

    assert graded.returncode == 0, graded.stderr
    url = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(url, "attention-course") as gradebook:
        gradebook.find_grade("test_softmax", "attention_numpy", ASSIGNMENT, "zoe").manual_score = 9.5
        gradebook.db.commit()
    again = grade("--nbgrader", str(course), "--out", str(tmp_path / "out"), "--format", "csv", "--seed", "3")
    assert again.returncode == 0, again.stderr
    with Gradebook(url, "attention-course") as gradebook:
        cell = gradebook.find_grade("test_softmax", "attention_numpy", ASSIGNMENT, "zoe")
        assert cell.manual_score == 9.5 and cell.score == 9.5 and cell.needs_manual_grade
    # the core outputs (csv among them), and the written answers' files, which every run of a bundle with them writes
    written = ["written", "written.csv"] if BUNDLE.assignment.written else []
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".grader-run.json", "feedback", "grades.csv",
                                                                   "results.json", *written]


def test_course_mistakes_are_one_line_errors(course: Path, tmp_path: Path):
    proc = grade("--nbgrader", str(course), "--assignment-id", "hw9", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no submissions of 'hw9'" in proc.stderr
    proc = grade("--nbgrader", str(tmp_path), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "no gradebook" in proc.stderr
    proc = grade(str(SAMPLE), "--nbgrader", str(course), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "not both" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_a_bundle_that_does_not_match_the_gradebook_grades_nothing(course: Path, tmp_path: Path):
    config = yaml.safe_load(BUNDLE_PATH.read_text(encoding="utf-8"))
    config["items"]["softmax"]["checks"]["returns_array_of_input_shape"] = 2  # softmax now worth 11
    config["bundle"] = {**config["bundle"], "checks": str(BUNDLE.root / "checks"),
                        "reference": str(BUNDLE.reference_dir), "catalogue": str(BUNDLE.catalogue_dir)}
    (tmp_path / "assignment.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    before = (course / "gradebook.db").read_bytes()
    proc = grade("--nbgrader", str(course), "--assignment", str(tmp_path / "assignment.yaml"),
                 "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "attention/attention_numpy/test_softmax is worth 10 points in the gradebook, 11 in" in proc.stderr
    assert (course / "gradebook.db").read_bytes() == before and not (tmp_path / "o").exists()
