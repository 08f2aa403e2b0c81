"""The records of written answers, shared by every stage that reads or shows them.

An ``Answer`` is what a student submitted for one question; a ``Mark`` is what a person gave
it. A mark holds the digest of the answer it was given for: when the student's text changes,
the digests differ and the answer awaits a grader again (never a stale score kept silently).
"""

from __future__ import annotations

import hashlib
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

    ``text`` is None when the submission has no answer cell for the question (the notebook was
    not submitted, or the cell was deleted); an untouched released cell counts as unanswered."""

    student: str
    question: str
    text: str | None
    digest: str
    note: str = ""  # what the reading found amiss (the text cut, several cells), for the person grading

    @classmethod
    def of(cls, student: str, question: str, text: str | None, note: str = "") -> Answer:
        """The answer with its digest (of "" when there is none: a mark of "no answer" is tied to that)."""
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


# A written row's status: a mark for the answer as it is, none yet (an answer, or no answer cell
# at all), or a mark given for an earlier text (its points no longer count).
STATUSES = ("graded", "awaiting", "missing", "changed")


@dataclass(frozen=True)
class WrittenRow:
    """One student's answer to one question beside its mark, as every output shows it."""

    student: str
    answer: Answer
    mark: Mark | None
    status: str  # one of STATUSES

    @property
    def earned(self) -> float | None:
        """The points that count: the mark's when it was given for this text; None otherwise."""
        return self.mark.points if self.status == "graded" and self.mark is not None else None


def row_of(answer: Answer, mark: Mark | None) -> WrittenRow:
    """``answer`` beside ``mark`` (a person's, or None), with the status that follows."""
    if mark is None:
        status = "missing" if answer.text is None else "awaiting"
    else:
        status = "graded" if mark.digest == answer.digest else "changed"
    return WrittenRow(answer.student, answer, mark, status)
