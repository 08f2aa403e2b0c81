"""``grade --nbgrader COURSE_DIR``: nbgrader's autograde done by this grader. The course's
submissions are graded as a class (sandboxed, like any run), the scores go into its
gradebook and the notebooks formgrader shows into its ``autograded/``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..assignment.bundle import load_bundle
from ..extras import require_extra
from .course import class_view, open_course
from .gradebook import NbgraderGradebook
from .manual import check_typed_marks, marks_from_gradebook


@dataclass(frozen=True)
class CourseRun:
    run: Any  # grade_class's RunOutcome
    awaiting: int  # written answers formgrader lists for a person to grade


def grade_course(course_dir: Path, assignment_path: Path, *, assignment_id: str | None, out: Path | None,
                 **options: Any) -> CourseRun:
    """``grade --nbgrader COURSE_DIR``: grade the course's submissions of the assignment
    (``grader.grading.classrun.grade_class`` with ``options``), write the scores into its
    gradebook and the ``autograded/`` notebooks formgrader shows.
    ``out``: default ``COURSE_DIR/grader-reports/ASSIGNMENT_ID``."""
    require_extra("nbgrader", "course", "--nbgrader")
    from ..grading.classrun import grade_class

    if options.get("written"):  # marks merged here only would be taken back by the next regrade
        raise ValueError(f"grade: --written goes with a class folder; with --nbgrader the gradebook is the record: "
                         f"grade the written answers in formgrader (not {options['written'][0]})")

    bundle = load_bundle(assignment_path)
    course = open_course(course_dir, assignment_id or bundle.name)
    gradebook = NbgraderGradebook(course)
    gradebook.check(bundle)  # a course that does not match the bundle is told before anything runs
    # formgrader's manual scores count in every output of ours, as in nbgrader export's totals; they
    # replace the output folder's written.csv, so that a score cleared there awaits a grader here.
    held = marks_from_gradebook(course, bundle.assignment), Path(course.db_url.removeprefix("sqlite:///"))
    out = out if out is not None else course.root / "grader-reports" / course.assignment_id
    check_typed_marks(course, bundle.assignment, out, held[0])
    with class_view(course) as view:
        # The course holds the solutions (source/) and every student's work: no sandbox sees it.
        run = grade_class(view, out, assignment_path=assignment_path, stages=[gradebook], hide=[course.root],
                          held_marks=held, **options)
    return CourseRun(run, gradebook.awaiting)
