"""Reporters: what a grading run writes, one output format per module.

Every run writes the core formats (``CORE_REPORTERS``); ``--format`` adds others. A reporter
is made with the output folder, then gets ``start(bundle, run)``, ``add(result)`` for each
student (in completion order, once the class is graded), and ``close()``. It is
chosen by its format's name (``--format``): adding a format is a module of its own and one
line in ``REPORTERS`` (imported only when chosen, so a format's optional dependencies stay
optional). A reporter writes only inside the folder it is given (the run's staging folder).
A reporter may take keyword options, which it adds to the command line itself
(``add_options``, read back by ``options``: the Canvas gradebook), and may say in
``summary_lines()`` what the run's summary should say after it closed (the Canvas reporter's
students it could not match). A reporter class declares what else it needs of the run in
``needs`` (``Needs``), and the run hands each what it declared.
"""

from __future__ import annotations

import argparse
import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, Protocol

from ..assignment.bundle import Bundle
from ..records.results import RunInfo, SubmissionResult


class Output(Protocol):
    """What a run feeds its results to: a reporter, the comparison with the earlier run, the
    written answers' files, a stage."""

    def start(self, bundle: Bundle, run: RunInfo) -> None: ...

    def add(self, result: SubmissionResult) -> None: ...

    def close(self) -> None: ...


class Stage(Output, Protocol):
    """An output that is also a record of the grades (nbgrader's gradebook): fed the results as
    graded, after every other output, which get them as it holds them (``held``: a score a
    grader set there wins)."""

    def held(self, result: SubmissionResult) -> SubmissionResult: ...


@dataclass(frozen=True)
class Needs:
    """What a reporter needs of the run besides the results' scores."""

    examples: bool = False  # the public examples' pictures, which the workers draw
    behaviour: bool = False  # the digest of what each item that lost points returned
    code: bool = False  # each item's code, fingerprinted by the workers (``NotebookResult.code``)
    formats: bool = False  # the formats the run writes, handed to it as ``formats=``

    def __or__(self, other: Needs) -> Needs:
        return Needs(**{f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self)})


class Reporter(ABC):
    """One output format. ``needs``: what it needs of the run; ``add_options`` and ``options``:
    its own options on the command line, and their values as its keyword options."""

    needs: ClassVar[Needs] = Needs()

    @abstractmethod
    def __init__(self, out_dir: Path, **options: Any) -> None: ...

    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        """Add this format's options to ``grade``'s ``parser`` (most formats have none)."""
        return None

    @classmethod
    def options(cls, args: argparse.Namespace, chosen: bool) -> dict[str, Any]:
        """This format's keyword options from the parsed command line (``chosen``: the run
        writes it); a ValueError for an option given without its format."""
        return {}

    @abstractmethod
    def start(self, bundle: Bundle, run: RunInfo) -> None: ...

    @abstractmethod
    def add(self, result: SubmissionResult) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def summary_lines(self) -> list[str]:
        """What the run's summary says of this output once it has closed."""
        return []


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


def needs_of(names: Sequence[str]) -> Needs:
    """What the reporters called ``names`` need together (an unknown name: a ValueError)."""
    needs = Needs()
    for name in names:
        needs |= reporter_class(name).needs
    return needs


def add_options(parser: argparse.ArgumentParser) -> None:
    """Every format's own options, added to ``grade``'s ``parser``."""
    for name in REPORTERS:
        reporter_class(name).add_options(parser)


def options_given(args: argparse.Namespace, chosen: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each format's keyword options as ``args`` gave them, by name; a ValueError for an option
    given without its format (``chosen``: the formats the run writes)."""
    return {name: reporter_class(name).options(args, name in chosen) for name in REPORTERS}


def feed(stages: Sequence[Output], bundle: Bundle, run: RunInfo, results: Sequence[SubmissionResult]) -> None:
    """Each of ``stages`` started, given every result in turn, and closed."""
    for stage in stages:
        stage.start(bundle, run)
    for result in results:
        for stage in stages:
            stage.add(result)
    for stage in stages:
        stage.close()
