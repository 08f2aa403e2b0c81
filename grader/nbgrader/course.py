"""An nbgrader course folder: its configuration, its submissions of one assignment as a class
folder, and nbgrader's own tools on PATH."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..submissions.files import copy_submitted


@dataclass(frozen=True)
class Course:
    root: Path
    course_id: str
    db_url: str
    submitted: Path  # submitted/: one folder per student
    assignment_id: str

    def submission(self, student: str) -> Path:
        return self.submitted / student / self.assignment_id


def open_course(course_dir: Path, assignment_id: str) -> Course:
    """The nbgrader course at ``course_dir``, with its configuration; a ValueError (one line)
    when it has no gradebook holding ``assignment_id`` or no submissions of it."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    root = Path(course_dir).resolve()
    if not root.is_dir():
        raise ValueError(f"--nbgrader {course_dir}: not a folder; give the nbgrader course folder (the one "
                         "holding source/ and submitted/)")
    config = Config()
    if (root / "nbgrader_config.py").is_file():
        config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config())
    config.CourseDirectory.root = str(root)
    coursedir = CourseDirectory(config=config)
    db_url = str(coursedir.db_url)
    if db_url.startswith("sqlite:///") and not Path(db_url[len("sqlite:///"):]).is_file():
        raise ValueError(f"--nbgrader {course_dir}: no gradebook ({db_url}); release the assignment with "
                         "nbgrader generate_assignment first")
    submitted = root / str(coursedir.submitted_directory)
    course = Course(root, str(coursedir.course_id), db_url, submitted, assignment_id)
    if not submitted.is_dir() or not any(course.submission(p.name).is_dir() for p in submitted.iterdir()):
        raise ValueError(f"--nbgrader {course_dir}: no submissions of {assignment_id!r} "
                         f"({submitted}/<student>/{assignment_id}/)")
    return course


@contextlib.contextmanager
def class_view(course: Course) -> Iterator[Path]:
    """A class folder of the assignment's submissions: ``<student>/<assignment>/``, a copy of the
    student's ``submitted/<student>/<assignment>/`` made by ``copy_submitted`` (a link in it stays
    a link, which the grading refuses in words; a link as either folder is copied as a link, and
    that student's row says so). Students who submitted only other assignments are not in it, as
    autograde grades only the submissions it finds.

    The notebooks sit one level down, in nbgrader's own layout, so that no id is layout: a
    student named as the assignment holds only a folder where a class folder's own notebooks
    would make it one student's folder."""
    with tempfile.TemporaryDirectory(prefix="grader-nbgrader-class-") as tmp:
        view = Path(tmp)
        for student in sorted(course.submitted.iterdir()):
            folder = course.submission(student.name)
            if student.name.startswith(".") or not folder.is_dir():
                continue
            if student.is_symlink() or folder.is_symlink():
                os.symlink(folder, view / student.name)  # never followed: the row says it is a link
            else:
                (view / student.name).mkdir()
                copy_submitted(folder, view / student.name / course.assignment_id)
        yield view


@contextlib.contextmanager
def interpreter_bin_on_path() -> Iterator[None]:
    """nbgrader's gradebook shells out to ``alembic`` found on PATH; make it the one installed
    next to this interpreter (a virtualenv need not be activated)."""
    old = os.environ.get("PATH")
    os.environ["PATH"] = os.pathsep.join(
        [str(Path(sys.executable).parent)] + ([old] if old else [])
    )
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = old
