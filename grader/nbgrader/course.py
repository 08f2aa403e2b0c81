"""An nbgrader course folder: its configuration, and nbgrader's own tools on PATH (its
submissions of one assignment come in as a class folder by ``grader.run.intake``)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


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
