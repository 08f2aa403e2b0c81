"""End to end: after ``grade --nbgrader``, formgrader works as after ``nbgrader autograde``,
read through formgrader's own code (``NbGraderAPI``, its submission page's handler and its
grade API's handler): the autograded notebooks, the written answers listed for manual
grading, a manual score kept across regrades, and a changed answer flagged again."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbgrader_support import (
    ASSIGNMENT,
    BUNDLE,
    COURSE_ID,
    NUMPY,
    QUESTIONS,
    answer,
    api,
    call,
    find_grade,
    generated_course,
    grade,
    handler,
    nbgrader,
    set_manual,
    submit,
)

from grader.nbgrader.course import open_course
from grader.nbgrader.manual import marks_from_gradebook
from grader.records.answers import answer_digest

pytest.importorskip("torch")
pytest.importorskip("nbgrader")

ADA_ANSWER = "Every query meets every key: n² scores, and the n×n weights are held per head."


def forge(path: Path, question: str, **metadata: Any) -> None:
    """A student's edit of an answer cell's nbgrader metadata."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == question:
            cell.metadata.nbgrader.update(metadata)
    nbformat.write(nb, path)


def run(course: Path, out: Path) -> subprocess.CompletedProcess[str]:
    done = grade("--nbgrader", str(course), "--out", str(out), "--format", "json,csv", "--seed", "3", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ada answers both questions, zoe one (the other left as released, and the answer's
    metadata forged), grace neither (her notebook has no answer cells); ada's submission has a
    timestamp, the others none."""
    course = generated_course(tmp_path_factory.mktemp("formgrader"))
    answer(submit(course, "ada", "Ada Lovelace"), {QUESTIONS[0]: ADA_ANSWER, QUESTIONS[1]: "dot; concat."})
    zoe = submit(course, "zoe", "Zoë Çelik")
    answer(zoe, {QUESTIONS[1]: "*dot* is fastest, *concat* has most parameters"})
    forge(zoe / f"{NUMPY}.ipynb", QUESTIONS[1], points=100, checksum="forged")
    submit(course, "grace", "Grace Hopper")
    (course / "submitted" / "ada" / ASSIGNMENT / "timestamp.txt").write_text("2026-01-05 10:00:00.000000 UTC\n")
    return course


@pytest.fixture(scope="module")
def graded(course: Path) -> subprocess.CompletedProcess[str]:
    return run(course, course / "out")


def test_formgrader_lists_every_submission_as_autograded(course: Path, graded):
    # Counted once, as formgrader lists them (no answer is 0 points, nothing to grade), with the next step there.
    assert ("6 written answers: 3 await a grader (6 points), 3 with no answer (0 points): grade them in formgrader"
            in graded.stdout and "written.csv" not in graded.stdout)
    nbgrader_api = api(course)
    submissions = {s["student"]: s for s in nbgrader_api.get_submissions(ASSIGNMENT)}
    assert set(submissions) == {"ada", "zoe", "grace"}
    assert all(s["autograded"] for s in submissions.values()), submissions
    assert submissions["ada"]["needs_manual_grade"] and submissions["zoe"]["needs_manual_grade"]
    assert not submissions["grace"]["needs_manual_grade"]  # no answer: nothing for a person to read
    for student in submissions:  # an id: formgrader found the notebook in autograded/
        notebooks = nbgrader_api.get_student_notebook_submissions(student, ASSIGNMENT)
        assert sorted(nb["name"] for nb in notebooks if nb["id"]) == sorted(BUNDLE.assignment.notebooks)
    indices = nbgrader_api.get_notebook_submission_indices(ASSIGNMENT, NUMPY)
    assert len(indices) == 3
    folder = course / "autograded" / "ada" / ASSIGNMENT
    assert (folder / "timestamp.txt").read_text() == "2026-01-05 10:00:00.000000 UTC\n"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no partial file left


def test_the_written_answers_await_a_grader_and_an_untouched_one_scores_zero(course: Path, graded):
    for question in QUESTIONS:
        row = find_grade(course, "ada", question)
        assert row["needs_manual_grade"] and row["auto_score"] is None and row["manual_score"] is None
        row = find_grade(course, "grace", question)
        assert not row["needs_manual_grade"] and row["auto_score"] == 0 and row["auto_comment"] == "No response."
    assert find_grade(course, "zoe", QUESTIONS[1])["needs_manual_grade"]
    untouched = find_grade(course, "zoe", QUESTIONS[0])
    assert not untouched["needs_manual_grade"] and untouched["auto_score"] == 0
    pending = {row["student"] for row in api(course).get_notebook_submissions(ASSIGNMENT, NUMPY)
               if row["needs_manual_grade"]}
    assert pending == {"ada", "zoe"}


def test_formgraders_submission_page_shows_the_answer_and_the_cells_metadata_is_the_gradebooks(course: Path,
                                                                                                graded):
    from nbgrader.api import Gradebook
    from nbgrader.server_extensions.formgrader.handlers import SubmissionHandler

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gradebook:
        submission_id = gradebook.find_submission_notebook(NUMPY, ASSIGNMENT, "ada").id
    page = call(SubmissionHandler.get, handler(course), submission_id)
    assert "Submission notebook file not found" not in page and "n×n weights are held per head" in page
    assert f'id="{QUESTIONS[0]}"' in page or QUESTIONS[0] in page
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{NUMPY}.ipynb", as_version=4)
    expected = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"] for c in released.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") in QUESTIONS}
    for student in ("ada", "zoe"):
        autograded = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{NUMPY}.ipynb", as_version=4)
        assert all(not c.get("outputs") for c in autograded.cells)  # nothing the student's kernel printed
        cells = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"] for c in autograded.cells
                 if c.metadata.get("nbgrader", {}).get("grade_id") in QUESTIONS}
        assert cells == expected  # zoe's forged points and checksum are the gradebook's again


def test_a_manual_score_survives_a_regrade_and_a_changed_answer_is_flagged_again(course: Path, graded,
                                                                                 tmp_path: Path):
    set_manual(course, "ada", QUESTIONS[0], 1.5, "the memory part is missing")
    set_manual(course, "zoe", QUESTIONS[1], 2.0, "")
    assert not find_grade(course, "ada", QUESTIONS[0])["needs_manual_grade"]

    assert "6 written answers: 2 graded, 1 awaits a grader (2 points), 3 with no answer (0 points): grade them in " \
        "formgrader" in run(course, tmp_path / "again").stdout
    kept = find_grade(course, "ada", QUESTIONS[0])
    assert kept["manual_score"] == 1.5 and kept["score"] == 1.5 and not kept["needs_manual_grade"]
    marks = {(m.student, m.question): m for m in marks_from_gradebook(open_course(course, ASSIGNMENT),
                                                                       BUNDLE.assignment)}
    assert set(marks) == {("ada", QUESTIONS[0]), ("zoe", QUESTIONS[1])}
    assert marks["ada", QUESTIONS[0]].digest == answer_digest(ADA_ANSWER)
    assert marks["ada", QUESTIONS[0]].comment == "the memory part is missing"

    # Our totals and nbgrader's agree once manual scores exist: formgrader's marks count in every
    # output of ours (results.json and grades.csv alike), beside the answers' own columns.
    results = json.loads((tmp_path / "again" / "results.json").read_text(encoding="utf-8"))
    manual = {student: sum(m.points for m in marks.values() if m.student == student) for student in ("ada", "zoe")}
    ours = {s["student"]: s["score"] for s in results["students"]}
    assert ours == pytest.approx({s["student"]: sum(i["earned"] for i in s["items"]) + manual.get(s["student"], 0.0)
                                  for s in results["students"]})
    with open(tmp_path / "again" / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert {student: float(row["score"]) for student, row in rows.items()} == pytest.approx(ours)
    assert rows["ada"][QUESTIONS[0]] == "1.5" and rows["zoe"][QUESTIONS[1]] == "2"
    nbgrader(course, "export", "--to", str(tmp_path / "export.csv"))
    with open(tmp_path / "export.csv", newline="", encoding="utf-8") as handle:
        theirs = {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}
    assert theirs == pytest.approx(ours)

    answer(course / "submitted" / "ada" / ASSIGNMENT, {QUESTIONS[0]: ADA_ANSWER + " Also O(n) memory."})
    run(course, tmp_path / "changed")
    # Ours count no points for a text no one has read: the answer awaits a grader again.
    again = json.loads((tmp_path / "changed" / "results.json").read_text(encoding="utf-8"))
    ada = next(s for s in again["students"] if s["student"] == "ada")
    assert ada["score"] == pytest.approx(ours["ada"] - 1.5)
    changed = find_grade(course, "ada", QUESTIONS[0])
    assert changed["needs_manual_grade"] and changed["manual_score"] == 1.5  # kept, for the grader to review
    assert not find_grade(course, "zoe", QUESTIONS[1])["needs_manual_grade"]
    run(course, tmp_path / "again-changed")  # still flagged: no one has read it yet
    assert find_grade(course, "ada", QUESTIONS[0])["needs_manual_grade"]
    mark = next(m for m in marks_from_gradebook(open_course(course, ASSIGNMENT), BUNDLE.assignment)
                if m.student == "ada")
    assert mark.digest == answer_digest(ADA_ANSWER)  # the text it was given for, not the new one

    set_manual(course, "ada", QUESTIONS[0], 1.5, "reviewed")  # the grader reads it, keeps the score
    run(course, tmp_path / "reviewed")
    assert not find_grade(course, "ada", QUESTIONS[0])["needs_manual_grade"]
