"""The one door a class comes in by (``grader.run.intake``): each way of giving a class becomes
one folder per student."""

from __future__ import annotations

from pathlib import Path

from grader.run.intake import intake
from grader.run.plan import COURSE, SUBMISSION, ToGrade

NOTEBOOKS = ("attention_numpy", "attention_torch")


def test_one_submission_is_a_class_of_one_student_under_the_id_it_is_given(tmp_path: Path):
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "attention_numpy.ipynb").write_text("{}")
    (tmp_path / "submission" / "link.py").symlink_to(tmp_path / "elsewhere.py")
    lines: list[str] = []
    with intake(ToGrade(tmp_path / "submission", SUBMISSION, "submission"), NOTEBOOKS, lines.append) as taken:
        assert [p.name for p in taken.class_dir.iterdir()] == ["submission"]
        assert (taken.class_dir / "submission" / "attention_numpy.ipynb").read_text() == "{}"
        assert (taken.class_dir / "submission" / "link.py").is_symlink()  # copied as a link, never followed
        assert taken.lms is None and taken.hidden == ()
    assert not taken.class_dir.exists()


def test_a_class_folder_comes_in_as_itself_and_a_course_as_its_students_submissions(tmp_path: Path):
    (tmp_path / "class" / "ada").mkdir(parents=True)
    with intake(ToGrade(tmp_path / "class"), NOTEBOOKS, print) as taken:
        assert taken.class_dir == tmp_path / "class" and taken.lms is None
    (tmp_path / "submitted" / "bob" / "hw1").mkdir(parents=True)
    (tmp_path / "submitted" / "eve" / "hw2").mkdir(parents=True)
    with intake(ToGrade(tmp_path / "submitted", COURSE, "hw1"), NOTEBOOKS, print) as taken:
        assert [p.name for p in taken.class_dir.iterdir()] == ["bob"]
        assert (taken.class_dir / "bob" / "hw1").is_dir()
