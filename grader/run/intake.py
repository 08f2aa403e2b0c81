"""The one door every class comes in by: what the run was given to grade (``ToGrade``), as a
class folder of one folder per student, for as long as the run lasts."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..lms.intake import from_download
from ..records.lms_download import LmsInfo
from ..sandbox.paths import SCRATCH
from ..submissions.files import copy_submitted
from .plan import COURSE, SUBMISSION, ToGrade


@dataclass(frozen=True)
class Intake:
    """The class as the run reads it."""

    class_dir: Path  # one folder per student
    lms: LmsInfo | None  # the class was this Canvas or Moodle download
    hidden: tuple[Path, ...]  # what no sandbox may see besides ``class_dir``: the download itself


@contextlib.contextmanager
def intake(to_grade: ToGrade, notebooks: tuple[str, ...], log: Callable[[str], None]) -> Iterator[Intake]:
    """``to_grade`` as a class folder (a temporary one, removed afterwards, unless it was one
    already); what could not be copied goes to ``log``."""
    path = to_grade.path
    if to_grade.layout == COURSE:
        with course_view(path, to_grade.below) as view:
            yield Intake(view, None, ())
    elif to_grade.layout == SUBMISSION:
        with tempfile.TemporaryDirectory(prefix="grader-gradescope-") as tmp:
            class_dir = Path(tmp) / "class"
            # Read as any class is: a link is copied as a link, never followed (one into the
            # autograder's source would otherwise be graded as the student's work), and refused in words.
            for left in copy_submitted(path, class_dir / to_grade.below):
                log(f"{to_grade.below}: not copied: {left}")
            yield Intake(class_dir, None, ())
    else:
        with from_download(path, notebooks) as (class_dir, lms):
            # The download itself holds every student's work: no sandbox sees it either.
            # (A zip's folder, unless the sandboxes have a fresh one anyway: /tmp.)
            download = [path if path.is_dir() else path.parent] if lms is not None else []
            yield Intake(class_dir, lms, tuple(p for p in download if p not in (Path("/"), *SCRATCH)))


@contextlib.contextmanager
def course_view(submitted: Path, assignment_id: str) -> Iterator[Path]:
    """A class folder of nbgrader's ``submitted/``: ``<student>/<assignment_id>/``, a copy of the
    student's ``submitted/<student>/<assignment_id>/`` made by ``copy_submitted`` (a link in it
    stays a link, which the grading refuses in words; a link as either folder is copied as a
    link, and that student's row says so). Students who submitted only other assignments are
    not in it, as autograde grades only the submissions it finds.

    The notebooks sit one level down, in nbgrader's own layout, so that no id is layout: a
    student named as the assignment holds only a folder where a class folder's own notebooks
    would make it one student's folder."""
    with tempfile.TemporaryDirectory(prefix="grader-nbgrader-class-") as tmp:
        view = Path(tmp)
        for student in sorted(submitted.iterdir()):
            folder = student / assignment_id
            if student.name.startswith(".") or not folder.is_dir():
                continue
            if student.is_symlink() or folder.is_symlink():
                os.symlink(folder, view / student.name)  # never followed: the row says it is a link
            else:
                (view / student.name).mkdir()
                copy_submitted(folder, view / student.name / assignment_id)
        yield view
