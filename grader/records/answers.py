"""The records of written answers, shared by every stage that reads or shows them.

An ``Answer`` is what a student submitted for one question; a ``Mark`` is what a person gave
it. A mark holds the digest of the answer it was given for: when the student's text changes,
the digests differ and the answer awaits a grader again (never a stale score kept silently).

Every answer is in one of four states (``state_of``): not answered (0 points, nothing to grade,
as nbgrader gives a cell left as released), awaiting a grader, graded, or changed since graded
(awaiting a grader again). ``WrittenRow.earned`` is the points each state counts, and
``count`` the one tally every output and message shows (``WrittenCounts.describe``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

# The columns of written.csv, in order: the file a person fills (or the grading page exports)
# and ``grade --written`` reads back. ``rubric`` holds the rubric parts awarded, by name,
# separated by ";".
WRITTEN_CSV_COLUMNS = ("student", "question", "points", "rubric", "comment", "digest")


def answer_digest(text: str) -> str:
    """The digest a mark is tied to: trailing spaces and blank lines at either end do not count,
    as a notebook front-end adds and removes them without the student changing a word."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    normal = "\n".join(lines).strip("\n")
    # surrogatepass: a notebook's JSON may hold a lone surrogate, which plain UTF-8 cannot encode.
    return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True)
class Answer:
    """One student's answer to one question, as submitted.

    ``text`` is None when there is no answer: the submission has no answer cell for the question
    (the notebook was not submitted, or the cell was deleted), or the cell is empty or left as
    released (``is_answer``)."""

    student: str
    question: str
    text: str | None
    digest: str
    note: str = ""  # what the reading found amiss (the text cut, several cells), for the person grading

    @classmethod
    def of(cls, student: str, question: str, text: str | None, note: str = "") -> Answer:
        """The answer with its digest (of "" when there is none: a mark of "no answer" is tied to that)."""
        text = text if is_answer(text) else None
        return cls(student, question, text, answer_digest(text or ""), note)


@dataclass(frozen=True)
class Mark:
    """A person's grade of one answer: the points, the rubric parts awarded, a comment for the
    student, and the digest of the answer's text that was read."""

    student: str
    question: str
    points: float
    rubric: tuple[str, ...]
    comment: str
    digest: str


# A written answer's state, one of four, the same in every output, count and message:
UNANSWERED = "unanswered"  # no answer: the cell missing, empty or left as released; 0 points, nothing to grade
AWAITING = "awaiting"  # an answer no person has graded yet
GRADED = "graded"  # a person's mark, given for the answer as it is
CHANGED = "changed"  # a person's mark given for an earlier text: it no longer counts, the answer awaits a grader again
STATES = (UNANSWERED, AWAITING, GRADED, CHANGED)
TO_GRADE = (AWAITING, CHANGED)  # the states a person still has to grade (formgrader's "needs manual grade")
# What each state is called wherever a person reads it (the grading page, the class report, the summary).
LABELS = {UNANSWERED: "no answer", AWAITING: "awaiting a grader", GRADED: "graded", CHANGED: "changed since graded"}
PLACEHOLDER = "YOUR ANSWER HERE"  # what nbgrader's release leaves in a markdown answer cell


def is_answer(text: str | None) -> bool:
    """Whether a cell's text is an answer: not absent, not empty, not the release's placeholder
    (nbgrader's own test: it gives such a cell 0 and "No response." and lists nothing to grade)."""
    return text is not None and text.strip() not in ("", PLACEHOLDER)


def state_of(text: str | None, graded_for: str | None) -> str:
    """The state of an answer whose text is ``text`` (None: no answer cell) and whose mark, if a
    person gave one, was given for the text of digest ``graded_for`` (None: no mark). A mark for
    no answer (the digest of "") is a person's decision to give points anyway: graded."""
    digest = answer_digest(text if text is not None and is_answer(text) else "")
    if graded_for is not None and graded_for == digest:
        return GRADED
    if not is_answer(text):
        return UNANSWERED
    return AWAITING if graded_for is None else CHANGED


@dataclass(frozen=True)
class WrittenRow:
    """One student's answer to one question beside its mark, as every output shows it."""

    student: str
    answer: Answer
    mark: Mark | None
    status: str  # one of STATES

    @property
    def earned(self) -> float | None:
        """The points that count: the mark's when it was given for this text, 0 for no answer;
        None while the answer awaits a grader."""
        if self.status == GRADED and self.mark is not None:
            return self.mark.points
        return 0.0 if self.status == UNANSWERED else None

    @property
    def awaits_grader(self) -> bool:
        return self.status in TO_GRADE

    @property
    def comment(self) -> str:
        """A person's comment for the student: a counting mark's, never one given for an earlier
        text (changed, or since removed)."""
        return self.mark.comment if self.mark is not None and self.status == GRADED else ""


def row_of(answer: Answer, mark: Mark | None) -> WrittenRow:
    """``answer`` beside ``mark`` (a person's, or None), with the state that follows."""
    return WrittenRow(answer.student, answer, mark, state_of(answer.text, None if mark is None else mark.digest))


@dataclass(frozen=True)
class WrittenCounts:
    """How many answers are in each state, and the points of those that await a grader: the one
    tally that the run's summary, the class report and the grading page all show (``count``)."""

    unanswered: int = 0
    awaiting: int = 0  # never graded
    graded: int = 0
    changed: int = 0  # graded for an earlier text: awaiting a grader again
    points_awaiting: float = 0.0  # the questions' points of the answers awaiting a grader (changed ones too)

    def __add__(self, other: WrittenCounts) -> WrittenCounts:
        return WrittenCounts(self.unanswered + other.unanswered, self.awaiting + other.awaiting,
                             self.graded + other.graded, self.changed + other.changed,
                             self.points_awaiting + other.points_awaiting)

    @property
    def answers(self) -> int:
        return self.unanswered + self.awaiting + self.graded + self.changed

    @property
    def to_grade(self) -> int:
        """The answers a person still has to grade: those awaiting, changed ones included."""
        return self.awaiting + self.changed

    def describe(self) -> str:
        """One line, e.g. "6 written answers: 1 graded, 3 await a grader (6 points; 1 of them changed since
        graded), 2 with no answer (0 points)"."""
        parts = [f"{self.graded} graded"] if self.graded else []
        if self.to_grade:
            changed = f"; {self.changed} of them changed since graded" if self.changed else ""
            verb = "awaits" if self.to_grade == 1 else "await"
            parts.append(f"{self.to_grade} {verb} a grader ({_points(self.points_awaiting)}{changed})")
        if self.unanswered:
            parts.append(f"{self.unanswered} with {LABELS[UNANSWERED]} (0 points)")
        noun = "written answer" if self.answers == 1 else "written answers"
        return f"{self.answers} {noun}: {', '.join(parts)}"


def count(answers: Iterable[tuple[str, float]]) -> WrittenCounts:
    """The counts of ``answers``, each given as its state and its question's points."""
    answers = list(answers)
    states = [state for state, _ in answers]
    awaiting = float(sum(points for state, points in answers if state in TO_GRADE))
    return WrittenCounts(states.count(UNANSWERED), states.count(AWAITING), states.count(GRADED),
                         states.count(CHANGED), awaiting)


def _points(value: float) -> str:
    return f"{value:g} point" + ("" if value == 1 else "s")
