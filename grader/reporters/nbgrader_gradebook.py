"""nbgrader's gradebook as a stage of a run: each item's score written into the grade cell of
the source notebook that ``nbgrader generate_assignment`` (``python -m grader release``)
recorded for it, so that ``nbgrader export``, formgrader and manual grading see the scores and
``nbgrader autograde`` is not needed.

A course folder is read as nbgrader reads it: its ``nbgrader_config.py`` if it has one (the
root, ``course_id`` and ``db_url`` it sets), else nbgrader's defaults
(``<course>/gradebook.db``). The class is ``submitted/<student>/<assignment>/``, one folder per
student who submitted this assignment. Each item ``NAME`` of the bundle is the grade cell
``test_NAME`` of its notebook (the grade ids of the bundle's source notebooks). Students and
submissions missing from the gradebook are added, as ``nbgrader autograde`` adds them, with
the submission's ``timestamp.txt``; manual scores are kept (a grade with one is flagged for
review, as autograde flags it), and cells that are not items (written answers) are left alone.

Not a ``REPORTERS`` entry (it writes into the course, not into the run's folder): the CLI's
``--nbgrader`` adds it to the run. The scores are kept until ``close`` and written only once
every student is graded, so that an interrupted run leaves the gradebook as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..bundle import Bundle
from ..results import RunInfo, SubmissionResult


def grade_id(item: str) -> str:
    """The nbgrader grade cell (``grade_id``) that holds ``item``'s score."""
    return f"test_{item}"


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
    """A class folder of the assignment's submissions: ``<student>`` -> the student's
    ``submitted/<student>/<assignment>/`` (students who submitted only other assignments are
    not in it, as autograde grades only the submissions it finds)."""
    with tempfile.TemporaryDirectory(prefix="grader-nbgrader-class-") as tmp:
        view = Path(tmp)
        for student in sorted(course.submitted.iterdir()):
            folder = course.submission(student.name)
            if not student.name.startswith(".") and folder.is_dir():
                os.symlink(folder, view / student.name, target_is_directory=True)
        yield view


class NbgraderGradebook:
    """Feeds a run's results into the course's gradebook (see the module's docstring)."""

    def __init__(self, course: Course) -> None:
        self.course = course
        self.scores: dict[str, dict[tuple[str, str], float]] = {}  # student -> (notebook, grade id) -> score

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.check(bundle)

    def check(self, bundle: Bundle) -> None:
        """That the gradebook has a grade cell for every item, with the YAML's points; a
        ValueError (one line) saying which does not."""
        assignment = self.course.assignment_id
        with self._gradebook() as gradebook:
            from nbgrader.api import MissingEntry

            try:
                gradebook.find_assignment(assignment)
            except MissingEntry:
                raise ValueError(f"--nbgrader {self.course.root}: the gradebook has no assignment {assignment!r}; "
                                 "release it with nbgrader generate_assignment first") from None
            for item in bundle.assignment.items:
                try:
                    cell = gradebook.find_grade_cell(grade_id(item.name), item.notebook, assignment)
                except MissingEntry:
                    raise ValueError(f"--nbgrader {self.course.root}: the gradebook has no grade cell "
                                     f"{grade_id(item.name)!r} in {assignment}/{item.notebook}; generate the "
                                     "assignment from this bundle's source notebooks") from None
                if cell.max_score != item.points:
                    raise ValueError(f"--nbgrader {self.course.root}: {assignment}/{item.notebook}/"
                                     f"{grade_id(item.name)} is worth {cell.max_score:g} points in the gradebook, "
                                     f"{item.points:g} in {bundle.assignment.path}; generate the assignment again")

    def add(self, result: SubmissionResult) -> None:
        self.scores[result.student] = {(item.notebook, grade_id(item.name)): item.earned for item in result.items}

    def close(self) -> None:
        from nbgrader.coursedir import CourseDirectory

        assignment = self.course.assignment_id
        coursedir = CourseDirectory(root=str(self.course.root))
        with self._gradebook() as gradebook:
            for student, scores in sorted(self.scores.items()):
                gradebook.update_or_create_student(student)
                timestamp = coursedir.get_existing_timestamp(str(self.course.submission(student)))
                extra: dict[str, Any] = {"timestamp": timestamp} if timestamp else {}
                gradebook.update_or_create_submission(assignment, student, **extra)
                for (notebook, cell), score in scores.items():
                    grade = gradebook.find_grade(cell, notebook, assignment, student)
                    grade.auto_score = score
                    # A grader's manual score stays, and is flagged for review (as autograde does).
                    grade.needs_manual_grade = grade.manual_score is not None
            gradebook.db.commit()

    @contextlib.contextmanager
    def _gradebook(self) -> Iterator[Any]:
        from nbgrader.api import Gradebook

        from ..release import _interpreter_bin_on_path

        with _interpreter_bin_on_path(), Gradebook(self.course.db_url, self.course.course_id) as gradebook:
            yield gradebook
