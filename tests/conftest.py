"""Fixtures shared across the test folders: a process's end, and grading in-process (fast,
and the same checks as the sandboxed path; the audit and the end-to-end tests cover the
sandbox), which the engine's check library's tests and the attention bundle's share; and the
tests run once, in tox's full env alone (tests/matrix_support.py)."""

from __future__ import annotations

import os
import select
from collections.abc import Callable

import pytest
from bundle_support import BUNDLE_PATH, BUNDLE_VARIABLE
from matrix_support import ONCE, ONCE_VARIABLE, deselects

from grader.assignment.bundle import Bundle, load_bundle
from grader.assignment.catalogue import Entry
from grader.generate.sample_class import sample_students
from grader.records.results import ItemResult
from grader.runners.inprocess import InProcessRunner
from grader.submissions.load import Cell, SourceFile
from grader.worker.score import run_item

if os.environ.get(BUNDLE_VARIABLE):
    # Before any test module imports `reference`: one process imports one package of that name,
    # and it must be the other bundle's.
    load_bundle(BUNDLE_PATH)

def _ends_within(pid: int, seconds: float) -> bool:
    """Whether ``pid`` ends within ``seconds`` (waited for on a pidfd, not polled)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"once: run in tox's py311-np2 alone ({ONCE_VARIABLE}=deselect elsewhere)")


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = []
    if os.environ.get(ONCE_VARIABLE) == "deselect":
        lines.append(f"{ONCE_VARIABLE}=deselect: the tests marked once are left out here (tox's py311-np2 runs them)")
    if os.environ.get(BUNDLE_VARIABLE):
        lines.append(f"{BUNDLE_VARIABLE}: the bundle-dependent tests read {BUNDLE_PATH}")
    return lines


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(ONCE):
            item.add_marker(pytest.mark.once)
    try:
        leave_out = deselects()
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    if leave_out:
        once = [item for item in items if item.get_closest_marker("once")]
        config.hook.pytest_deselected(items=once)
        items[:] = [item for item in items if not item.get_closest_marker("once")]


@pytest.fixture(scope="session")
def ends_within() -> Callable[[int, float], bool]:
    """``ends_within(pid, seconds)``: whether the process ends in time."""
    return _ends_within


@pytest.fixture(scope="session")
def assignment() -> Bundle:
    """The bundle under test (its ``.assignment`` is the YAML's items and points)."""
    return load_bundle(BUNDLE_PATH)


_GRADED: dict[tuple[str, str, str, int, str | None], dict[str, ItemResult]] = {}


def grade_notebook(assignment: Bundle, notebook: str, entry: Entry | None = None, seed: int = 1234,
                   code: str | None = None) -> dict[str, ItemResult]:
    """Every item of ``notebook`` graded on the reference with ``entry`` (or ``code``) appended;
    each combination is graded once a session."""
    key = (str(assignment.root), notebook, entry.name if entry else "<reference>", seed, code)
    if key not in _GRADED:
        _GRADED[key] = _grade(assignment, notebook, entry, seed, code)
    return _GRADED[key]


def _grade(assignment: Bundle, notebook: str, entry: Entry | None, seed: int,
           code: str | None) -> dict[str, ItemResult]:
    source = assignment.reference_source(notebook)
    extra = entry.code if entry is not None else code
    if extra:
        source += "\n\n" + extra
    # A time limit, as in the sandbox: some entries never return (the sample class's hang).
    runner = InProcessRunner.from_source(SourceFile(notebook, f"{notebook}.py", (Cell(1, source),)), seconds=2)
    assert not runner.load.cell_errors, runner.load.cell_errors
    return {item.name: run_item(item, runner, seed, assignment.checks)[0]
            for item in assignment.assignment.items_of(notebook)}


@pytest.fixture(scope="session")
def grade():
    """``grade_notebook`` as a fixture (same behaviour): ``grade(assignment, notebook, entry, ...)``."""
    return grade_notebook


def expected_sample_grades(assignment: Bundle, seed: int) -> dict[str, dict[str, float]]:
    """Each sample student's points per item with ``seed``, as ``sample_students.yaml`` declares
    them: the items of a notebook it solved graded on the reference with its entries appended
    (its solution there is correct but for them), nothing elsewhere."""
    grades = {}
    for student in sample_students(assignment):
        points: dict[str, float] = {}
        for notebook in assignment.assignment.notebooks:
            if notebook not in student.solved:
                points.update({item.name: 0.0 for item in assignment.assignment.items_of(notebook)})
                continue
            code = "\n\n".join(e.code for e in student.entries if e.notebook == notebook)
            graded = grade_notebook(assignment, notebook, seed=seed, code=code or None)
            points.update({name: result.earned for name, result in graded.items()})
        grades[student.name] = points
    return grades


@pytest.fixture(scope="session")
def sample_grades(assignment: Bundle) -> Callable[[int], dict[str, dict[str, float]]]:
    """``sample_grades(seed)``: each sample student's points per item (``expected_sample_grades``)."""
    return lambda seed: expected_sample_grades(assignment, seed)
