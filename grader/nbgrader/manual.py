"""Written answers graded by a person in formgrader: which answer text each manual score was
given for, so that a changed answer is marked for review again and never keeps its old score
silently, and the marks the gradebook holds as ``Mark`` records for the run's reports.

formgrader records a score, not the text it was given for. So each run keeps, per student and
question, in ``COURSE/.grader/<assignment>/written.json`` (the course's, beside nothing a
student sees): the digest of the answer it wrote into ``autograded/`` (what formgrader shows),
the digest the manual score is for, the manual score, and whether the run left the answer
flagged. A manual score that changed since, or a flag a person cleared, was given for the
answer formgrader showed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ..assignment.config import Assignment
from ..records.answers import Mark, answer_digest
from ..written.marks import read_marks
from .course import Course


@dataclass(frozen=True)
class Seen:
    """One answer as a run left it. ``shown``: the digest of the answer in ``autograded/``
    (None: no answer cell); ``graded``: the digest the manual score is for (None: no score)."""

    shown: str | None
    graded: str | None
    manual: float | None
    flagged: bool


def state_path(course: Course) -> Path:
    return course.root / ".grader" / course.assignment_id / "written.json"


def read_state(course: Course) -> dict[tuple[str, str], Seen]:
    """What the last run left (empty before the first); a ValueError (one line) for a file that
    is not one this module wrote."""
    path = state_path(course)
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {(row["student"], row["question"]): Seen(row["shown"], row["graded"], row["manual"], row["flagged"])
                for row in raw["answers"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"--nbgrader: {path} is damaged ({type(exc).__name__}: {exc}); delete it, and the "
                         "written answers graded so far are taken as graded for the answers submitted now") from None


def write_state(course: Course, state: dict[tuple[str, str], Seen]) -> None:
    """Replace the file whole."""
    path = state_path(course)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"student": student, "question": question, **asdict(seen)}
            for (student, question), seen in sorted(state.items())]
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    partial.write_text(json.dumps({"answers": rows}, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)


def graded_digest(before: Seen | None, manual: float | None, flagged: bool, current: str | None) -> str | None:
    """The digest of the answer a manual score is for. ``flagged``: the gradebook's
    needs_manual_grade now (formgrader clears it when a person saves a score)."""
    if manual is None:
        return None
    if before is None:  # a score given before any run of ours: taken as given for this answer
        return current
    if manual != before.manual or (before.flagged and not flagged):
        return before.shown  # a person graded since the last run, reading what it wrote
    return before.graded


def needs_review(auto: float | None, manual: float | None, graded: str | None, current: str | None) -> bool:
    """nbgrader's flag: an answer with neither score awaits a grader; one whose text changed
    since it was graded awaits one again."""
    if manual is None:
        return auto is None
    return graded != current


def settle(before: Seen | None, auto: float | None, manual: float | None, flagged: bool,
           current: str | None) -> Seen:
    """An answer's record after this run, given what the last run left and the gradebook now."""
    graded = graded_digest(before, manual, flagged, current)
    return Seen(current, graded, manual, needs_review(auto, manual, graded, current))


def digest_of(source: str | None) -> str | None:
    return None if source is None else answer_digest(source)


def marks_from_gradebook(course: Course, assignment: Assignment) -> list[Mark]:
    """Every manual score of a written answer in the course's gradebook, as a ``Mark``: the
    points, formgrader's manual comment, and the digest of the answer the score was given for
    (as the last ``grade --nbgrader`` recorded it: a mark whose digest differs from the answer
    submitted now awaits a grader again). Read-only: it changes neither file."""
    from nbgrader.api import Gradebook, MissingEntry

    from .course import interpreter_bin_on_path

    state = read_state(course)
    marks = []
    with interpreter_bin_on_path(), Gradebook(course.db_url, course.course_id) as gradebook:
        for submission in gradebook.assignment_submissions(course.assignment_id):
            student = submission.student.id
            for question in assignment.written:
                try:
                    grade = gradebook.find_grade(question.id, question.notebook, course.assignment_id, student)
                    comment = gradebook.find_comment(question.id, question.notebook, course.assignment_id, student)
                except MissingEntry:
                    continue
                if grade.manual_score is None:
                    continue
                seen = state.get((student, question.id))
                # Scored before any run of ours: no text known, so the mark is for none (awaits review).
                digest = graded_digest(seen, grade.manual_score, grade.needs_manual_grade,
                                       seen.shown if seen is not None else None)
                marks.append(Mark(student, question.id, float(grade.manual_score), (),
                                  comment.manual_comment or "", digest or answer_digest("")))
    return marks


def check_typed_marks(course: Course, assignment: Assignment, out: Path, held: Sequence[Mark]) -> None:
    """The gradebook is the record, and the output folder's written.csv a copy of it that the
    run replaces: a mark there that the gradebook does not hold and the last run did not write
    (a person typed it) would be lost, so a ValueError (one line) says where to give it."""
    path = out / "written.csv"
    if not path.is_file():
        return
    students = {p.name for p in course.submitted.iterdir() if course.submission(p.name).is_dir()}
    state = read_state(course)
    kept = {(m.student, m.question): m.points for m in held}
    for key, given in read_marks([], path, assignment, students).given.items():
        last = state.get(key)
        if given.mark.points != kept.get(key) and (last is None or last.manual != given.mark.points):
            raise ValueError(f"{given.where}: a mark typed for {key[0]!r}, {key[1]!r}; with --nbgrader the "
                             "gradebook is the record: give it in formgrader, then grade again")
