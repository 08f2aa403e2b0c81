"""What the per-check formats (JUnit, PrairieLearn, Gradescope) share: the texts of a check
and of a submission, and one JSON file per student."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from ..bundle import Bundle
from ..filenames import safe_name
from ..results import CheckResult, ItemResult, RunInfo, SubmissionResult


class JsonPerStudent(ABC):
    """A reporter writing ``<folder>/<student>.json`` (``render``'s dict) as each result arrives."""

    folder_name: ClassVar[str]

    def __init__(self, out_dir: Path) -> None:
        self.folder = out_dir / self.folder_name

    @abstractmethod
    def render(self, result: SubmissionResult) -> dict[str, Any]:
        """The student's results in the format."""

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        text = json.dumps(self.render(result), ensure_ascii=False, indent=1) + "\n"
        (self.folder / f"{safe_name(result.student)}.json").write_text(text, encoding="utf-8")

    def close(self) -> None:
        return None


def check_output(item: ItemResult, check: CheckResult) -> str:
    """What a check's test shows: why it failed (the property that broke), or that it passed."""
    if check.passed:
        return "passed"
    return "\n".join([check.message or item.error or "failed", *item.mistakes])


def submission_notes(result: SubmissionResult) -> list[str]:
    """What the student should know beyond the checks: notebooks missing, unusable, taken under
    another name, and cells that raised while the notebook ran."""
    lines = []
    for nb in result.notebooks:
        if nb.failure:
            lines.append(f"{nb.notebook}: {nb.failure}")
        if nb.note:
            lines.append(f"{nb.notebook}: {nb.note}")
        for cell, error in nb.cell_errors:
            last = error.strip().splitlines()[-1] if error.strip() else error
            lines.append(f"{nb.notebook}, {cell} raised {last[:300]} while the notebook ran "
                         "(the following cells still ran).")
    return lines


def all_unusable(result: SubmissionResult) -> bool:
    """Nothing of the submission could be graded: no notebook could be read or loaded."""
    return not result.notebooks or all(nb.failure for nb in result.notebooks)
