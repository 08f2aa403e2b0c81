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

Not a ``REPORTERS`` entry (it writes into the course, not into the run's folder):
``grader.nbgrader.course.grade_course`` (``--nbgrader``) adds it to the run. The scores are
kept until ``close`` and written only once every student is graded, so that an interrupted run
leaves the gradebook as it was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..assignment.bundle import Bundle
from ..results import RunInfo, SubmissionResult
from .course import Course, interpreter_bin_on_path


def grade_id(item: str) -> str:
    """The nbgrader grade cell (``grade_id``) that holds ``item``'s score."""
    return f"test_{item}"


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

        with interpreter_bin_on_path(), Gradebook(self.course.db_url, self.course.course_id) as gradebook:
            yield gradebook
