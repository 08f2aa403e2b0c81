"""nbgrader's submitted/ as a class folder: copied as every intake reads, never through a link."""

from pathlib import Path

from grader.nbgrader.course import Course, class_view
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
    with class_view(course) as view:
        folders = discover(view).students
        assert [f.name for f in folders] == ["ada", "bob", "eve", "zoe"]
        subs = {f.name: load_submission(f, "attention", NOTEBOOKS).file("attention_numpy") for f in folders}
    assert [c.source for c in subs["bob"].cells] == ["x = 1\n"]
    assert subs["ada"].problem == "attention_numpy.py is a symbolic link: not read; submit the file itself"
    for name in ("eve", "zoe"):
        assert subs[name].problem == (f"the student's folder {name} is a symbolic link: not read; submit the files "
                                      "themselves")
