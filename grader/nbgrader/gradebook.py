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
review, as autograde flags it).

The gradebook is the record: a score a grader set on a test cell in formgrader (its manual
score, and any extra credit) replaces the checks' in every output of the run (``held``), as
it does in ``nbgrader export``; the checks' own score stays the cell's automatic one.

Formgrader works after a run as after ``nbgrader autograde``: the ``autograded/`` notebooks it
shows are written (``grader.nbgrader.autograded``), and the bundle's written answers (markdown
answer cells) are listed for manual grading: an answered cell without a manual score needs
one, an untouched or deleted cell scores 0 ("No response."), and a manual score stays, flagged
again only when the answer's text changed since it was given (``grader.nbgrader.manual``).

Not a ``REPORTERS`` entry (it writes into the course, not into the run's folder):
``grader.nbgrader.course.grade_course`` (``--nbgrader``) adds it to the run. The scores are
kept until ``close`` and written only once every student is graded, so that an interrupted run
leaves the gradebook as it was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ..assignment.bundle import Bundle
from ..assignment.config import WrittenQuestion
from ..records.results import RunInfo, SubmissionResult
from .autograded import AutogradedNotebook, build_notebook, failure_text, write_autograded
from .course import Course, interpreter_bin_on_path
from .manual import Seen, digest_of, read_state, settle, write_state


def grade_id(item: str) -> str:
    """The nbgrader grade cell (``grade_id``) that holds ``item``'s score."""
    return f"test_{item}"


class NbgraderGradebook:
    """Feeds a run's results into the course's gradebook (see the module's docstring)."""

    def __init__(self, course: Course) -> None:
        self.course = course
        self.scores: dict[str, dict[tuple[str, str], float]] = {}  # student -> (notebook, grade id) -> score
        self.failures: dict[str, dict[str, dict[str, str]]] = {}  # student -> notebook -> grade id -> why
        # (student, item) -> a grader's score in formgrader (manual or None, extra credit or None)
        self.overrides: dict[tuple[str, str], tuple[float | None, float | None]] = {}
        self.written: tuple[WrittenQuestion, ...] = ()
        self.notebooks: tuple[str, ...] = ()
        self.before: dict[tuple[str, str], Seen] = {}
        self.awaiting = 0  # written answers left for a person to grade in formgrader (after close)

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.check(bundle)

    def check(self, bundle: Bundle) -> None:
        """That the gradebook has a grade cell for every item and written answer, with the YAML's
        points, and that the record of manual scores can be read; a ValueError (one line) saying
        which does not."""
        assignment = self.course.assignment_id
        self.written, self.notebooks = bundle.assignment.written, bundle.assignment.notebooks
        self.before = read_state(self.course)  # a damaged file is told before anything runs
        with self._gradebook() as gradebook:
            from nbgrader.api import MissingEntry

            try:
                gradebook.find_assignment(assignment)
            except MissingEntry:
                raise ValueError(f"--nbgrader {self.course.root}: the gradebook has no assignment {assignment!r}; "
                                 "release it with nbgrader generate_assignment first") from None
            cells = [(grade_id(item.name), item.notebook, item.points) for item in bundle.assignment.items]
            cells += [(question.id, question.notebook, question.points) for question in self.written]
            for name, notebook, points in cells:
                try:
                    cell = gradebook.find_grade_cell(name, notebook, assignment)
                except MissingEntry:
                    raise ValueError(f"--nbgrader {self.course.root}: the gradebook has no grade cell "
                                     f"{name!r} in {assignment}/{notebook}; generate the "
                                     "assignment from this bundle's source notebooks") from None
                if cell.max_score != points:
                    raise ValueError(f"--nbgrader {self.course.root}: {assignment}/{notebook}/"
                                     f"{name} is worth {cell.max_score:g} points in the gradebook, "
                                     f"{points:g} in {bundle.assignment.path}; generate the assignment again")
            items = {grade_id(item.name): item.name for item in bundle.assignment.items}
            self.overrides = {(submission.student.id, items[grade.name]): (grade.manual_score, grade.extra_credit)
                              for submission in gradebook.assignment_submissions(assignment)
                              for notebook in submission.notebooks for grade in notebook.grades
                              if grade.name in items and (grade.manual_score, grade.extra_credit) != (None, None)}

    def add(self, result: SubmissionResult) -> None:
        """Keep the checks' scores (the cells' automatic scores) and why each item lost points."""
        self.scores[result.student] = {(item.notebook, grade_id(item.name)): item.earned for item in result.items}
        failures: dict[str, dict[str, str]] = {}
        for item in result.items:
            if (why := failure_text(item)) is not None:
                failures.setdefault(item.notebook, {})[grade_id(item.name)] = why
        self.failures[result.student] = failures

    def held(self, result: SubmissionResult) -> SubmissionResult:
        """``result`` as the gradebook holds it: a test cell's manual score and extra credit
        over the checks' score, as nbgrader's own totals count them."""
        items = []
        for item in result.items:
            manual, extra = self.overrides.get((result.student, item.name), (None, None))
            earned = (item.earned if manual is None else manual) + (extra or 0.0)
            items.append(item if earned == item.earned else replace(item, earned=earned))
        if tuple(items) == result.items:
            return result
        gained = sum(new.earned - old.earned for new, old in zip(items, result.items, strict=True))
        return replace(result, items=tuple(items), score=round(result.score + gained, 6))

    def close(self) -> None:
        from nbgrader.coursedir import CourseDirectory

        assignment = self.course.assignment_id
        coursedir = CourseDirectory(root=str(self.course.root))
        # Before the gradebook is opened for writing: nbgrader's OverwriteCells reads it.
        built = {student: self._autograded(student) for student in sorted(self.scores)}
        before = self.before
        state = dict(before)  # students not in this run keep their records
        with self._gradebook() as gradebook:
            for student, scores in sorted(self.scores.items()):
                gradebook.update_or_create_student(student)
                timestamp = coursedir.get_existing_timestamp(str(self.course.submission(student)))
                extra: dict[str, Any] = {"timestamp": timestamp} if timestamp else {}
                # nbgrader builds the submission's notebooks and grades through relationships of
                # objects already in the session; a flush midway (SQLAlchemy 2 no longer cascades
                # backrefs) warns three times and saves nothing. Its own add and commit save them.
                with gradebook.db.no_autoflush:
                    gradebook.update_or_create_submission(assignment, student, **extra)
                for (notebook, cell), score in scores.items():
                    grade = gradebook.find_grade(cell, notebook, assignment, student)
                    grade.auto_score = score
                    # A grader's manual score stays, and is flagged for review (as autograde does).
                    grade.needs_manual_grade = grade.manual_score is not None
                answers = {question: answer for nb in built[student] for question, answer in nb.answers.items()}
                for question in self.written:
                    grade = gradebook.find_grade(question.id, question.notebook, assignment, student)
                    source, auto = answers.get(question.id, (None, 0.0))  # no answer cell: nothing to read
                    seen = settle(before.get((student, question.id)), auto, grade.manual_score,
                                  grade.needs_manual_grade, digest_of(source))
                    grade.auto_score = auto
                    grade.needs_manual_grade = seen.flagged
                    comment = gradebook.find_comment(question.id, question.notebook, assignment, student)
                    comment.auto_comment = "No response." if auto == 0 else None  # nbgrader's words
                    state[(student, question.id)] = seen
            for student, notebooks in built.items():
                write_autograded(self.course, student, notebooks, self.notebooks)
            gradebook.db.commit()
        write_state(self.course, state)
        self.awaiting = sum(1 for (student, _), seen in state.items() if seen.flagged and student in self.scores)

    def _autograded(self, student: str) -> list[AutogradedNotebook]:
        ids = tuple(question.id for question in self.written)
        failures = self.failures.get(student, {})
        built = (build_notebook(self.course, student, notebook, ids, failures.get(notebook))
                 for notebook in self.notebooks)
        return [notebook for notebook in built if notebook is not None]

    @contextlib.contextmanager
    def _gradebook(self) -> Iterator[Any]:
        from nbgrader.api import Gradebook

        with interpreter_bin_on_path(), Gradebook(self.course.db_url, self.course.course_id) as gradebook:
            yield gradebook
