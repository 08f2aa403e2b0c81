"""``grade --nbgrader COURSE_DIR``: nbgrader's autograde done by this grader. The course's
submissions are graded as a class (sandboxed, like any run), the scores go into its
gradebook and the notebooks formgrader shows into its ``autograded/``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..assignment.bundle import load_bundle
from ..extras import require_extra
from ..run.plan import COURSE, RunPlan, ToGrade
from .course import open_course
from .gradebook import NbgraderGradebook
from .manual import check_typed_marks, marks_from_gradebook


@dataclass(frozen=True)
class CourseRun:
    run: Any  # run_plan's RunOutcome
    awaiting: int  # written answers formgrader lists for a person to grade


def grade_course(plan: RunPlan, progress: Callable[[int, int], None] | None = None) -> CourseRun:
    """``grade --nbgrader COURSE_DIR``: grade the submissions of the course ``plan.to_grade``
    names (``below``: the assignment's id, by default the bundle's name) as ``plan`` says
    (``grader.run.classrun.run_plan``), write the scores into its gradebook and the
    ``autograded/`` notebooks formgrader shows. ``out_dir``: by default
    ``COURSE_DIR/grader-reports/ASSIGNMENT_ID``."""
    require_extra("nbgrader", "course", "--nbgrader")
    from ..run.classrun import run_plan

    outputs = plan.outputs
    if outputs.written:  # marks merged here only would be taken back by the next regrade
        raise ValueError(f"grade: --written goes with a class folder; with --nbgrader the gradebook is the record: "
                         f"grade the written answers in formgrader (not {outputs.written[0]})")

    bundle = load_bundle(plan.assignment)
    course = open_course(plan.to_grade.path, plan.to_grade.below or bundle.name)
    gradebook = NbgraderGradebook(course)
    gradebook.check(bundle)  # a course that does not match the bundle is told before anything runs
    # formgrader's manual scores count in every output of ours, as in nbgrader export's totals; they
    # replace the output folder's written.csv, so that a score cleared there awaits a grader here.
    held = marks_from_gradebook(course, bundle.assignment), Path(course.db_url.removeprefix("sqlite:///"))
    out = outputs.out_dir if outputs.out_dir is not None else course.root / "grader-reports" / course.assignment_id
    check_typed_marks(course, bundle.assignment, out, held[0])
    # The course holds the solutions (source/) and every student's work: no sandbox sees it.
    run = run_plan(replace(plan, to_grade=ToGrade(course.submitted, COURSE, course.assignment_id),
                           outputs=replace(outputs, out_dir=out, stages=(gradebook,), held_marks=held),
                           workers=replace(plan.workers, hidden=(*plan.workers.hidden, course.root))), progress)
    return CourseRun(run, gradebook.awaiting)
