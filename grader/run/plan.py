"""A class run's plan: what the command line (or a library caller) asked for, settled once
and read by every step of the run. ``Job``, what each worker is given, is made from it once
the seed is drawn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..assignment.config import DEFAULT_ASSIGNMENT
from ..records.answers import Mark
from ..records.job import Job
from ..reporters import CORE_REPORTERS, Stage

# How the class was given (``ToGrade.layout``).
FOLDER = "folder"  # a class folder (one folder per student), or a Canvas or Moodle download
# An nbgrader course: its folder as the instructor named it (``grader.nbgrader.autograde``), then its
# submitted/ folder: one folder per student, the assignment's work a folder below it.
COURSE = "course"
SUBMISSION = "submission"  # one student's folder (Gradescope's), graded under an id of its own


@dataclass(frozen=True)
class ToGrade:
    """What to grade, as it was given: ``path`` read by its ``layout`` (``grader.run.intake``).
    ``below``: with ``COURSE``, the assignment's folder in each student's; with ``SUBMISSION``,
    the student's id."""

    path: Path
    layout: str = FOLDER
    below: str = ""


@dataclass(frozen=True)
class Outputs:
    """Where the run writes, and what writes there."""

    out_dir: Path | None  # None: an nbgrader course's grader-reports/ASSIGNMENT_ID
    formats: tuple[str, ...] = CORE_REPORTERS  # the reporters' names
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # a reporter's keyword options
    stages: tuple[Stage, ...] = ()  # fed the results after the reporters (nbgrader's gradebook)
    written: tuple[Path, ...] = ()  # files of marks of the written answers (``--written``)
    held_marks: tuple[Sequence[Mark], Path] | None = None  # marks a platform holds, and where
    wait: bool = False  # wait for another run writing ``out_dir`` to end


@dataclass(frozen=True)
class WorkerPlan:
    """Who grades, and in what."""

    seed: int | None = None  # drawn when None
    jobs: int | None = None  # worker processes; the cores this process may use when None
    scheduler: str | None = None  # a Dask scheduler's address; local workers when None
    hidden: tuple[Path, ...] = ()  # more folders no sandbox may see (a course, with its solutions)
    diagnose: bool = True  # name the known mistakes that explain lost points


@dataclass(frozen=True)
class Asks:
    """What a run asks of its workers besides the scores (``Job``'s part that the plan decides)."""

    hidden: tuple[Path, ...] = ()  # folders no sandbox may see besides the class: the outputs, a course
    examples: bool = False  # each item's public example run too, for a reporter's pictures
    diagnose: bool = True
    behaviour: bool = False  # the digest of what an item that lost points returned
    code: bool = False  # each item's code, fingerprinted

    def job(self, bundle: Path, seed: int, class_dir: Path) -> Job:
        return Job(str(bundle), seed, str(class_dir), tuple(str(p) for p in self.hidden), self.examples,
                   self.diagnose, self.behaviour, self.code)


NO_ASKS = Asks()  # the scores alone, with the diagnoses


@dataclass(frozen=True)
class RunPlan:
    """Everything a class run was asked (``grader.run.classrun.run_plan``)."""

    to_grade: ToGrade
    outputs: Outputs
    assignment: Path = DEFAULT_ASSIGNMENT  # the bundle: its folder or its YAML
    workers: WorkerPlan = WorkerPlan()
