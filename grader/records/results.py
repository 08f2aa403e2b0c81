"""Typed, immutable results and their JSON form (the only form that leaves a worker)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..assignment.config import Assignment, Item
from .answers import UNANSWERED, Answer, Mark, WrittenRow, row_of
from .code import ItemCode
from .lms_download import LmsInfo
from .rung import Rung


@dataclass(frozen=True)
class CheckResult:
    name: str
    points: float
    earned: float
    passed: bool
    message: str  # why it failed, in terms of the property that broke; "" when passed
    # A failed tolerance comparison: its worst error / tolerance; None for any other outcome.
    margin: float | None = None
    # A passed check: the largest error / tolerance of its comparisons (how close it came to
    # failing; the audit prints it for the alternatives); None without one. Not in results.json.
    closest: float | None = None


DIAGNOSIS_OPENING = "This matches a known mistake: "  # how every diagnosis's sentence begins


@dataclass(frozen=True)
class Diagnosis:
    """A known mistake (a catalogue mutant) that reproduces what the student's code returned
    on an item where the reference does not (``grader.diagnosis.diagnose``)."""

    mistake: str  # the catalogue entry's id
    message: str  # the sentence the student reads: the idea, never a value or code


Table = tuple[tuple[float | None, ...], ...]  # rows of numbers; None for NaN or infinite
# A picture's table has at most this many rows, columns and entries: the worker draws no larger
# answer (it describes it), and a page draws no larger table, whatever a result says.
PICTURE_ENTRIES = 4096


def _table(rows: list[list[float | None]]) -> Table:
    return tuple(tuple(row) for row in rows)


@dataclass(frozen=True)
class Picture:
    """One public example of an item as the student's code answered it, beside what it should
    be: 2-D tables of numbers (``None`` for a non-finite entry) that a reporter may draw.

    Made only when a reporter asks for them (``grade(..., examples=True)``), from the bundle's
    fixed public inputs, never from the hidden checks' inputs."""

    title: str  # what was called, as the student would write it
    kind: str  # "weights" (0 to 1), "mask" (True = may attend) or "table" (signed values)
    expected: Table
    student: Table | None  # None: the call raised or returned no 2-D table
    wrong: tuple[tuple[int, int], ...]  # (row, column) of the student's entries that differ from expected
    note: str  # why there is no student table, or what is wrong with its shape; "" if nothing
    rows: str = "row"  # what a row stands for, e.g. "query"
    columns: str = "column"  # what a column stands for, e.g. "key"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Picture:
        student = data["student"]
        return cls(**{**data, "expected": _table(data["expected"]),
                      "student": None if student is None else _table(student),
                      "wrong": tuple((int(i), int(j)) for i, j in data["wrong"])})


@dataclass(frozen=True)
class ItemResult:
    name: str
    notebook: str
    points: float
    earned: float
    checks: tuple[CheckResult, ...]
    output: str  # what the student's code printed during this item, capped
    output_dropped: int  # bytes printed beyond the cap
    error: str | None  # why the item could not be (fully) run, if it could not
    examples: tuple[Picture, ...] = ()  # the item's public examples, when a reporter asked
    diagnoses: tuple[Diagnosis, ...] = ()  # the known mistakes that explain the lost points
    # What the code returned on the hidden checks of an item that lost points, as a digest, when a
    # reporter asked (``grader.integrity.behaviour``); "" otherwise. Not written to results.json.
    behaviour: str = ""
    raised: tuple[str, ...] = ()  # with ``behaviour``: the checks on which the code raised (not returned)

    @property
    def mistakes(self) -> tuple[str, ...]:
        """The diagnoses' sentences, each once (mutants that cannot be told apart may share one)."""
        return tuple(dict.fromkeys(d.message for d in self.diagnoses))


@dataclass(frozen=True)
class NotebookResult:
    notebook: str
    path: str | None
    failure: str | None  # could not be read or loaded at all
    cell_errors: tuple[tuple[str, str], ...]  # (the cell as the student sees it, the error)
    output: str  # printed while the cells ran, capped
    note: str | None = None  # which file was graded, when not the expected one
    last_cell: str | None = None  # the last cell that ran, as the student sees it
    # The code of each of its items the student defined, fingerprinted by the worker from the file
    # it read, when a reporter asked (``wants_code``: the integrity report); None when not asked, not
    # read (``failure`` says why) or too large to send. Not written to results.json.
    code: tuple[ItemCode, ...] | None = None
    code_skipped: tuple[str, ...] = ()  # with ``code``: the cells too large to read for it, each with why

    def ran_after(self, cell: str) -> bool:
        """Whether cells ran after ``cell`` (as the student sees it)."""
        return self.last_cell is not None and cell != self.last_cell


@dataclass(frozen=True)
class SubmissionResult:
    student: str
    score: float
    max_score: float
    items: tuple[ItemResult, ...]
    notebooks: tuple[NotebookResult, ...]
    seconds: float
    # The written answers, one per question of the bundle, each beside its mark once the run has
    # merged the marks (``grader.written.merge``): ``score`` counts the graded ones' points,
    # ``max_score`` every question's.
    written: tuple[WrittenRow, ...] = ()
    written_max: float = 0.0  # the written questions' points, part of ``max_score``

    @property
    def items_score(self) -> float:
        """The points the checks gave: what a platform that grades written answers itself gets."""
        return round(self.score - sum(row.earned or 0.0 for row in self.written), 6)

    @property
    def items_max(self) -> float:
        return self.max_score - self.written_max

    @property
    def written_earned(self) -> dict[str, float]:
        """The points of each written answer a person has graded, by question (no answer, which
        no person graded, is left out, as grades.csv leaves its cell empty)."""
        return {row.answer.question: row.earned for row in self.written
                if row.earned is not None and row.status != UNANSWERED}

    def to_json(self) -> dict[str, Any]:
        # What dataclasses.asdict gives, written out: asdict's deep copies cost a worker more
        # than some of the checks.
        data = {
            **vars(self),
            "items": [_item_json(item) for item in self.items],
            "notebooks": [_notebook_json(nb) for nb in self.notebooks],
            "written": [_written_json(row) for row in self.written],
        }
        if not self.written:  # a bundle without written answers writes results.json as before them
            del data["written"], data["written_max"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SubmissionResult:
        items = tuple(
            ItemResult(**{**item, "checks": tuple(CheckResult(**c) for c in item["checks"]),
                          "examples": tuple(Picture.from_json(p) for p in item.get("examples", ())),
                          "diagnoses": tuple(Diagnosis(**d) for d in item.get("diagnoses", ())),
                          "raised": tuple(item.get("raised", ()))})
            for item in data["items"]
        )
        notebooks = tuple(
            NotebookResult(**{**nb, "cell_errors": tuple((str(n), str(e)) for n, e in nb["cell_errors"]),
                              "code_skipped": tuple(str(note) for note in nb.get("code_skipped", ())),
                              "code": None if nb.get("code") is None
                              else tuple(ItemCode.from_json(c) for c in nb["code"])})
            for nb in data["notebooks"]
        )
        written = tuple(_written_row(data["student"], row) for row in data.get("written", ()))
        return cls(**{**data, "items": items, "notebooks": notebooks, "written": written})

    def item(self, name: str) -> ItemResult:
        for item in self.items:
            if item.name == name:
                return item
        raise KeyError(name)


def _notebook_json(nb: NotebookResult) -> dict[str, Any]:
    data = {**vars(nb), "cell_errors": [list(e) for e in nb.cell_errors]}
    if nb.code is None:  # a run without the integrity report sends and writes what it did before it
        del data["code"]
    else:
        data["code"] = [c.to_json() for c in nb.code]
    return data


def _written_json(row: WrittenRow) -> dict[str, Any]:
    mark = row.mark
    return {"question": row.answer.question, "text": row.answer.text, "digest": row.answer.digest,
            "note": row.answer.note, "status": row.status, "earned": row.earned,
            "mark": None if mark is None else {"points": mark.points, "rubric": list(mark.rubric),
                                               "comment": mark.comment, "digest": mark.digest}}


def _written_row(student: str, data: dict[str, Any]) -> WrittenRow:
    answer = Answer(student, data["question"], data["text"], data["digest"], data.get("note", ""))
    mark = data.get("mark")
    return row_of(answer, None if mark is None else Mark(student, answer.question, float(mark["points"]),
                                                         tuple(mark["rubric"]), mark["comment"], mark["digest"]))


def _item_json(item: ItemResult) -> dict[str, Any]:
    # closest only where there is one: most checks have none, and the worker sends every result.
    checks = [{k: v for k, v in vars(c).items() if k != "closest" or v is not None} for c in item.checks]
    data = {**vars(item), "checks": checks,
            "diagnoses": [dict(vars(d)) for d in item.diagnoses]}
    if item.examples:
        data["examples"] = [dict(vars(p)) for p in item.examples]  # tuples are written as lists
    else:  # a run without pictures writes the same results.json as before they existed
        del data["examples"]
    if not item.behaviour:
        del data["behaviour"]
    if not item.raised:
        del data["raised"]
    return data


@dataclass(frozen=True)
class RunInfo:
    """What a grading run records about itself (the ``run`` of ``results.json``)."""

    seed: int
    assignment: str  # the bundle's YAML
    given: str  # the class as the instructor gave it: a class folder, or an LMS download
    grader_version: str
    jobs: int
    scheduler: str  # "local" or the Dask scheduler's address
    rung: Rung  # how the sandboxes were isolated
    started: str
    lms: LmsInfo | None = None  # the class was this Canvas or Moodle download

    def to_json(self) -> dict[str, Any]:
        lms = {} if self.lms is None else {"lms": self.lms.to_json()}  # lateness and the files graded
        return {
            "seed": self.seed, "assignment": self.assignment, "class": self.given,
            "grader_version": self.grader_version, "jobs": self.jobs, "scheduler": self.scheduler,
            "sandbox": self.rung.to_json(), "started": self.started,
            **lms,
        }


def zero_item(item: Item, why: str) -> ItemResult:
    """``item`` with every check failed for one reason (the notebook was missing, could not
    load, or the grader itself failed): the one place a zero-score result is built."""
    checks = tuple(CheckResult(name, points, 0.0, False, why) for name, points in item.checks)
    return ItemResult(item.name, item.notebook, item.points, 0.0, checks, "", 0, why)


def zero_submission(student: str, assignment: Assignment, why: str) -> SubmissionResult:
    """A row for a student whose folder could not be graded at all (no answer read either)."""
    items = tuple(zero_item(item, why) for item in assignment.items)
    written = tuple(row_of(Answer.of(student, question.id, None), None) for question in assignment.written)
    return SubmissionResult(student, 0.0, assignment.total_points, items, (), 0.0, written, assignment.written_points)
