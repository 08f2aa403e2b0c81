"""Reporters: what a grading run writes, one output format per module.

Every run writes the core formats (``CORE_REPORTERS``); ``--format`` adds others. A reporter
is made with the output folder, then gets ``start(bundle, run)``, ``add(result)`` for each
student (in completion order, once the class is graded), and ``close()``. It is
chosen by its format's name (``--format``): adding a format is a module of its own and one
line in ``REPORTERS`` (imported only when chosen, so a format's optional dependencies stay
optional). A reporter writes only inside the folder it is given (the run's staging folder).
A reporter may take keyword options (``grade_class(reporter_options=...)``: the Canvas
gradebook), and may have ``summary_lines()``: what the run's summary should say after it
closed (the Canvas reporter's students it could not match). A reporter class asks the run for
more by a true attribute: ``wants_examples`` (the public examples' pictures), ``wants_behaviour``
(the digest of what each item that lost points returned), ``wants_code`` (each item's code,
fingerprinted by the workers: ``NotebookResult.code``), ``wants_formats`` (the run's formats, as
``formats=``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from ..assignment.bundle import Bundle
from ..records.results import RunInfo, SubmissionResult


class Stage(Protocol):
    """What a run feeds its results to: a reporter, or the nbgrader gradebook."""

    def start(self, bundle: Bundle, run: RunInfo) -> None: ...

    def add(self, result: SubmissionResult) -> None: ...

    def close(self) -> None: ...


class Reporter(Stage, Protocol):
    def __init__(self, out_dir: Path, **options: Any) -> None: ...


# format name -> "module:class"
REPORTERS: dict[str, str] = {
    "csv": "grader.reporters.grades_csv:GradesCsv",
    "json": "grader.reporters.results_json:ResultsJson",
    "markdown": "grader.reporters.feedback_md:FeedbackMarkdown",
    "junit": "grader.reporters.junit_xml:JUnitXml",
    "prairielearn": "grader.reporters.prairielearn:PrairieLearn",
    "gradescope": "grader.reporters.gradescope:Gradescope",
    "html": "grader.reporters.feedback_html:FeedbackHtml",
    "report": "grader.reporters.class_report:ClassReport",
    "canvas": "grader.reporters.canvas:CanvasGradebook",
    "moodle": "grader.reporters.moodle:MoodleGrades",
    "integrity": "grader.reporters.integrity_report:IntegrityReport",
}
# Written by every run: the course's record (grades.csv, results.json, feedback/*.md). --format adds to them.
CORE_REPORTERS = ("csv", "json", "markdown")
# The names `--report` took before `--format`; still accepted.
OLD_NAMES = {"grades-csv": "csv", "results-json": "json", "feedback-md": "markdown"}


def with_core(names: Sequence[str]) -> tuple[str, ...]:
    """The formats a run writes: the core ones, then ``names`` (each once, in order)."""
    return tuple(dict.fromkeys((*CORE_REPORTERS, *names)))


def reporter_class(name: str) -> type[Reporter]:
    """The class of the reporter called ``name``; a ValueError for an unknown name."""
    if name not in REPORTERS:
        raise ValueError(f"unknown reporter {name!r} (known: {', '.join(sorted(REPORTERS))})")
    module, cls = REPORTERS[name].split(":")
    found: type[Reporter] = getattr(importlib.import_module(module), cls)
    return found


def open_reporter(name: str, out_dir: Path, **options: Any) -> Reporter:
    """The reporter called ``name``, writing into ``out_dir``, with its ``options``."""
    return reporter_class(name)(out_dir, **options)


def feed(stages: Sequence[Stage], bundle: Bundle, run: RunInfo, results: Sequence[SubmissionResult]) -> None:
    """Each of ``stages`` started, given every result in turn, and closed."""
    for stage in stages:
        stage.start(bundle, run)
    for result in results:
        for stage in stages:
            stage.add(result)
    for stage in stages:
        stage.close()
