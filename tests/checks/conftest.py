"""Grade catalogue entries in-process: fast, and the same checks as the sandboxed path
(the audit and the end-to-end tests cover the sandbox)."""

from __future__ import annotations

import pytest

from grader.catalogue import Entry, reference_source
from grader.checks import known_checks
from grader.config import DEFAULT_ASSIGNMENT, Assignment, load_assignment
from grader.inprocess import InProcessRunner
from grader.load import Cell, SourceFile
from grader.results import ItemResult
from grader.run import run_item


@pytest.fixture(scope="session")
def assignment() -> Assignment:
    return load_assignment(DEFAULT_ASSIGNMENT, known_checks())


_GRADED: dict[tuple[str, str, str, int, str | None], dict[str, ItemResult]] = {}


def grade_notebook(assignment: Assignment, notebook: str, entry: Entry | None = None, seed: int = 1234,
                   code: str | None = None) -> dict[str, ItemResult]:
    """Every item of ``notebook`` graded on the reference with ``entry`` (or ``code``) appended;
    each combination is graded once a session."""
    key = (str(assignment.path), notebook, entry.name if entry else "<reference>", seed, code)
    if key not in _GRADED:
        _GRADED[key] = _grade(assignment, notebook, entry, seed, code)
    return _GRADED[key]


def _grade(assignment: Assignment, notebook: str, entry: Entry | None, seed: int,
           code: str | None) -> dict[str, ItemResult]:
    source = reference_source(notebook)
    extra = entry.code if entry is not None else code
    if extra:
        source += "\n\n" + extra
    runner = InProcessRunner.from_source(SourceFile(notebook, f"{notebook}.py", (Cell(1, source),)))
    assert not runner.load.cell_errors, runner.load.cell_errors
    return {item.name: run_item(item, runner, seed)[0] for item in assignment.items_of(notebook)}


def failed_checks(result: ItemResult) -> list[str]:
    return [f"{c.name}: {c.message}" for c in result.checks if not c.passed]


@pytest.fixture(scope="session")
def grade():
    """``grade_notebook`` as a fixture (same behaviour): ``grade(assignment, notebook, entry, ...)``."""
    return grade_notebook
