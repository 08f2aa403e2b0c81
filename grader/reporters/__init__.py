"""Reporters: what a grading run writes, one output format per module.

A reporter is made with the output folder, then gets ``start(bundle, run)``, ``add(result)``
for each student as the results stream in (in completion order), and ``close()``. It is
chosen by name: adding a format is a module of its own and one line in ``REPORTERS``
(imported only when chosen, so a format's optional dependencies stay optional).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Protocol

from ..bundle import Bundle
from ..results import RunInfo, SubmissionResult


class Reporter(Protocol):
    def __init__(self, out_dir: Path) -> None: ...

    def start(self, bundle: Bundle, run: RunInfo) -> None: ...

    def add(self, result: SubmissionResult) -> None: ...

    def close(self) -> None: ...


# name -> "module:class"
REPORTERS: dict[str, str] = {
    "grades-csv": "grader.reporters.grades_csv:GradesCsv",
    "results-json": "grader.reporters.results_json:ResultsJson",
    "feedback-md": "grader.reporters.feedback_md:FeedbackMarkdown",
    "feedback-html": "grader.reporters.feedback_html:FeedbackHtml",
    "report-html": "grader.reporters.class_report:ClassReport",
}
DEFAULT_REPORTERS = ("grades-csv", "results-json", "feedback-md")


def reporter_class(name: str) -> type[Reporter]:
    """The class of the reporter called ``name``; a ValueError for an unknown name."""
    if name not in REPORTERS:
        raise ValueError(f"unknown reporter {name!r} (known: {', '.join(sorted(REPORTERS))})")
    module, cls = REPORTERS[name].split(":")
    found: type[Reporter] = getattr(importlib.import_module(module), cls)
    return found


def open_reporter(name: str, out_dir: Path) -> Reporter:
    """The reporter called ``name``, writing into ``out_dir``."""
    return reporter_class(name)(out_dir)
