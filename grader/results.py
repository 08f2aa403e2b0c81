"""Typed, immutable results and their JSON form (the only form that leaves a worker)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
    cell_errors: tuple[tuple[int, str], ...]
    output: str  # printed while the cells ran, capped


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
            NotebookReport(**{**nb, "cell_errors": tuple((int(n), str(e)) for n, e in nb["cell_errors"])})
            for nb in data["notebooks"]
        )
        return cls(**{**data, "items": items, "notebooks": notebooks})

    def item(self, name: str) -> ItemResult:
        for item in self.items:
            if item.name == name:
                return item
        raise KeyError(name)
