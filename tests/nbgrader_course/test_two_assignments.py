"""One nbgrader course holding two assignments: each generated into it, submitted, graded with
``grade --nbgrader COURSE --assignment X``; the gradebook holds both assignments' scores, a run
of one touches nothing of the other's, and formgrader lists both. The second assignment is a
copy of the first under another id (tests/course_support.py), as no second bundle need ship."""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest
from course_support import copy_of_first
from nbgrader_support import ASSIGNMENT, COURSE_ID, SAMPLE, api, generated_course, grade, nbgrader

pytest.importorskip("torch")
pytest.importorskip("nbgrader")

SECOND = "second"
# (student, assignment) -> the sample student whose notebooks they submitted
SUBMITTED = {("ada", ASSIGNMENT): "Ada Lovelace", ("zoe", ASSIGNMENT): "Zoë Çelik",
             ("ada", SECOND): "Grace Hopper", ("grace", SECOND): "Ada Lovelace"}


def graded_cells(course: Path, assignment: str) -> dict[tuple[str, str, str], tuple]:
    """Every grade of ``assignment`` in the gradebook: (student, notebook, cell) -> its scores and flag."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gradebook:
        return {(submission.student.id, notebook.name, grade.name):
                (grade.auto_score, grade.manual_score, grade.needs_manual_grade)
                for submission in gradebook.assignment_submissions(assignment)
                for notebook in submission.notebooks for grade in notebook.grades}


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def autograded(course: Path, assignment: str) -> dict[str, bytes]:
    return {f"{student.name}/{path}": data for student in sorted((course / "autograded").iterdir())
            for path, data in files(student / assignment).items()} if (course / "autograded").is_dir() else {}


def run(course: Path, *bundle: str) -> subprocess.CompletedProcess[str]:
    done = grade("--nbgrader", str(course), *bundle, "--seed", "3", "--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The course with both assignments generated and submitted; the first graded, then the
    second, the first's records kept before and after."""
    course = generated_course(tmp_path_factory.mktemp("course"))
    second = copy_of_first(tmp_path_factory.mktemp("bundles"), SECOND)
    shutil.copytree(second, course / "source" / SECOND, ignore=shutil.ignore_patterns("*.yaml"))
    nbgrader(course, "generate_assignment", SECOND, "--create")
    for (student, assignment), sample in SUBMITTED.items():
        shutil.copytree(SAMPLE / sample / ASSIGNMENT, course / "submitted" / student / assignment)
    first_run = run(course)
    first = graded_cells(course, ASSIGNMENT), autograded(course, ASSIGNMENT), files(course / ".grader" / ASSIGNMENT)
    second_run = run(course, "--assignment", str(second))
    after_second = graded_cells(course, ASSIGNMENT), autograded(course, ASSIGNMENT), files(
        course / ".grader" / ASSIGNMENT)
    return {"root": course, "runs": (first_run, second_run), "first": (first, after_second)}


def test_each_run_grades_its_own_assignments_students_into_its_own_folder(course: dict):
    root = course["root"]
    for done, assignment, students in zip(course["runs"], (ASSIGNMENT, SECOND), (["ada", "zoe"], ["ada", "grace"]),
                                          strict=True):
        assert "2 students graded" in done.stdout, done.stdout
        feedback = root / "grader-reports" / assignment / "feedback"
        assert sorted(p.stem for p in feedback.iterdir()) == students
        assert sorted(p.name for p in (root / "autograded").iterdir() if (p / assignment).is_dir()) == students


def test_the_gradebook_holds_both_assignments_scores(course: dict, sample_grades):
    root = course["root"]
    nbgrader(root, "export", "--to", str(root / "export.csv"))
    with open(root / "export.csv", newline="", encoding="utf-8") as handle:
        rows = {(row["student_id"], row["assignment"]): float(row["score"]) for row in csv.DictReader(handle)}
    expected = {key: sum(sample_grades(3)[sample].values()) for key, sample in SUBMITTED.items()}
    assert {key: rows[key] for key in expected} == expected
    assert expected[("ada", ASSIGNMENT)] != expected[("ada", SECOND)]  # the two are told apart


def test_grading_one_assignment_leaves_the_others_records_as_they_were(course: dict):
    before, after = course["first"]
    cells, notebooks, state = before
    assert cells and notebooks and state  # there was something to keep
    assert after == before


def test_formgrader_lists_both_assignments_with_their_submissions(course: dict):
    nbgrader_api = api(course["root"])
    listed = {a["name"]: a for a in nbgrader_api.get_assignments()}
    assert {ASSIGNMENT, SECOND} <= set(listed)
    for assignment in (ASSIGNMENT, SECOND):
        assert listed[assignment]["num_submissions"] == 2
        submissions = nbgrader_api.get_submissions(assignment)
        assert all(s["autograded"] for s in submissions if s["submitted"]), submissions
        assert sorted(s["student"] for s in submissions if s["submitted"]) == sorted(
            student for student, name in SUBMITTED if name == assignment)
