"""The hidden-test cells of nbgrader's notebooks: ``assert_item`` runs an item's hidden checks
on the functions a notebook defined, in the notebook's own kernel (nbgrader's way, without a
sandbox; ``python -m grader grade`` is the isolated one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..assignment.bundle import Bundle, load_bundle
from ..assignment.config import DEFAULT_ASSIGNMENT
from ..assignment.shipped import resolve_assignment
from ..runners.inprocess import InProcessRunner
from ..worker.score import run_item

_BUNDLES: dict[Path, Bundle] = {}


def assert_item(item: str, namespace: dict[str, Any], seed: int = 0, *,
                bundle: Path | str = DEFAULT_ASSIGNMENT) -> None:
    """Run ``item``'s hidden checks of ``bundle`` (its folder, its YAML, or a shipped bundle's
    name: a notebook of any assignment but the first names its own) on the functions in
    ``namespace``; raise ``AssertionError`` naming every failed property (used in nbgrader
    test cells)."""
    path = resolve_assignment(bundle).resolve()
    if path not in _BUNDLES:
        _BUNDLES[path] = load_bundle(path)
    loaded = _BUNDLES[path]
    result, _ = run_item(loaded.assignment.item(item), InProcessRunner(namespace), seed, loaded.checks)
    failed = [f"{c.name}: {c.message}" for c in result.checks if not c.passed]
    if failed:
        raise AssertionError(f"{item}: {result.earned:g}/{result.points:g} points\n" + "\n".join(failed))
