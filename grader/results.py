"""Typed, immutable results and their JSON form (the only form that leaves a worker)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .config import Assignment, Item


@dataclass(frozen=True)
class CheckResult:
    name: str
    points: float
    earned: float
    passed: bool
    message: str  # why it failed, in terms of the property that broke; "" when passed
    # A failed tolerance comparison: its worst error / tolerance; None for any other outcome.
    margin: float | None = None


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


@dataclass(frozen=True)
class NotebookReport:
    notebook: str
    path: str | None
    failure: str | None  # could not be read or loaded at all
    cell_errors: tuple[tuple[str, str], ...]  # (the cell as the student sees it, the error)
    output: str  # printed while the cells ran, capped
    note: str | None = None  # which file was graded, when not the expected one


@dataclass(frozen=True)
class SubmissionResult:
    student: str
    score: float
    max_score: float
    items: tuple[ItemResult, ...]
    notebooks: tuple[NotebookReport, ...]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        # What dataclasses.asdict gives, written out: asdict's deep copies cost a worker more
        # than some of the checks.
        return {
            **vars(self),
            "items": [{**vars(item), "checks": [dict(vars(c)) for c in item.checks]} for item in self.items],
            "notebooks": [{**vars(nb), "cell_errors": [list(e) for e in nb.cell_errors]} for nb in self.notebooks],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SubmissionResult:
        items = tuple(
            ItemResult(**{**item, "checks": tuple(CheckResult(**c) for c in item["checks"])})
            for item in data["items"]
        )
        notebooks = tuple(
            NotebookReport(**{**nb, "cell_errors": tuple((str(n), str(e)) for n, e in nb["cell_errors"])})
            for nb in data["notebooks"]
        )
        return cls(**{**data, "items": items, "notebooks": notebooks})

    def item(self, name: str) -> ItemResult:
        for item in self.items:
            if item.name == name:
                return item
        raise KeyError(name)


@dataclass(frozen=True)
class RunInfo:
    """What a grading run records about itself (the ``run`` of ``results.json``)."""

    seed: int
    assignment: str  # the bundle's YAML
    class_dir: str
    grader_version: str
    jobs: int
    scheduler: str  # "local" or the Dask scheduler's address
    sandbox: str  # the isolation rung: root-namespaces, user-namespaces, landlock or degraded
    namespaces: bool
    drop_uid: bool
    notes: tuple[str, ...]  # how the sandbox is degraded on this host
    started: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed, "assignment": self.assignment, "class": self.class_dir,
            "grader_version": self.grader_version, "jobs": self.jobs, "scheduler": self.scheduler,
            "sandbox": {"mode": self.sandbox, "namespaces": self.namespaces, "drop_uid": self.drop_uid,
                        "notes": list(self.notes)},
            "started": self.started,
        }


def zero_item(item: Item, why: str) -> ItemResult:
    """``item`` with every check failed for one reason (the notebook was missing, could not
    load, or the grader itself failed): the one place a zero-score result is built."""
    checks = tuple(CheckResult(name, points, 0.0, False, why) for name, points in item.checks)
    return ItemResult(item.name, item.notebook, item.points, 0.0, checks, "", 0, why)


def zero_submission(student: str, assignment: Assignment, why: str) -> SubmissionResult:
    """A row for a student whose folder could not be graded at all."""
    items = tuple(zero_item(item, why) for item in assignment.items)
    return SubmissionResult(student, 0.0, assignment.max_score, items, (), 0.0)
