"""nbgrader's submitted/ as a class folder: copied as every intake reads, never through a link."""

from pathlib import Path

from grader.nbgrader.course import Course
from grader.run.intake import course_view
from grader.submissions.load import discover, load_submission

NOTEBOOKS = ("attention_numpy", "attention_torch")


def test_links_in_submitted_are_kept_as_links_and_refused_in_the_students_rows(tmp_path: Path):
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "attention_numpy.py").write_text("def softmax(x):  # the solution\n")
    submitted = tmp_path / "submitted"
    (submitted / "bob" / "attention").mkdir(parents=True)
    (submitted / "bob" / "attention" / "attention_numpy.py").write_text("x = 1\n")
    (submitted / "ada" / "attention").mkdir(parents=True)
    (submitted / "ada" / "attention" / "attention_numpy.py").symlink_to(tmp_path / "source" / "attention_numpy.py")
    (submitted / "eve").symlink_to(submitted / "bob", target_is_directory=True)
    (submitted / "zoe").mkdir()
    (submitted / "zoe" / "attention").symlink_to(submitted / "bob" / "attention", target_is_directory=True)
    course = Course(tmp_path, "course", "sqlite:///gradebook.db", submitted, "attention")
    with course_view(course.submitted, course.assignment_id) as view:
        folders = discover(view).students
        assert [f.name for f in folders] == ["ada", "bob", "eve", "zoe"]
        subs = {f.name: load_submission(f, "attention", NOTEBOOKS).file("attention_numpy") for f in folders}
    assert [c.source for c in subs["bob"].cells] == ["x = 1\n"]
    assert subs["ada"].problem == "attention/attention_numpy.py is a symbolic link: not read; submit the file itself"
    for name in ("eve", "zoe"):
        assert subs[name].problem == (f"the student's folder {name} is a symbolic link: not read; submit the files "
                                      "themselves")


def test_a_student_named_as_the_assignment_is_a_student_like_any_other(tmp_path: Path):
    submitted = tmp_path / "submitted"
    for student in ("attention", "bob"):
        (submitted / student / "attention").mkdir(parents=True)
        (submitted / student / "attention" / "attention_numpy.py").write_text(f"who = {student!r}\n")
    course = Course(tmp_path, "course", "sqlite:///gradebook.db", submitted, "attention")
    with course_view(course.submitted, course.assignment_id) as view:
        folders = discover(view, "attention", NOTEBOOKS).students
        assert [f.name for f in folders] == ["attention", "bob"]
        sources = [load_submission(f, "attention", NOTEBOOKS).file("attention_numpy").cells[0].source
                   for f in folders]
    assert sources == ["who = 'attention'\n", "who = 'bob'\n"]
