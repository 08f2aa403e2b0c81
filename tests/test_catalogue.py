"""Catalogue entries: the header lines are validated on load, with errors naming the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.catalogue import CatalogueError, load_catalogue
from grader.checks import known_checks
from grader.config import DEFAULT_ASSIGNMENT, load_assignment

ENTRY = '''"""softmax without the max shift."""
# item: softmax
{loses}
import numpy as np


def softmax(x, axis=-1):
    return np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)
'''


def _catalogue(tmp_path: Path, kind: str, loses: str) -> Path:
    shutil.copy(DEFAULT_ASSIGNMENT, tmp_path / "assignment.yaml")
    folder = tmp_path / "catalogue" / f"{kind}s"
    folder.mkdir(parents=True)
    path = folder / "entry.py"
    path.write_text(ENTRY.format(loses=loses), encoding="utf-8")
    return path


def test_loses_names_the_checks_a_mutant_must_fail(tmp_path: Path) -> None:
    _catalogue(tmp_path, "mutant", "# loses: stable_for_large_inputs, rows_sum_to_one")
    (entry,) = load_catalogue(load_assignment(tmp_path / "assignment.yaml", known_checks()))
    assert entry.loses == ("stable_for_large_inputs", "rows_sum_to_one")


def test_without_loses_a_mutant_must_only_lose_points(tmp_path: Path) -> None:
    _catalogue(tmp_path, "mutant", "")
    (entry,) = load_catalogue(load_assignment(tmp_path / "assignment.yaml", known_checks()))
    assert entry.loses == ()


@pytest.mark.parametrize("kind, loses, why", [
    ("mutant", "# loses: made_up", "'# loses: made_up' is not a check of softmax"),
    ("alternative", "# loses: rows_sum_to_one", "only a mutant has a '# loses:' line"),
])
def test_a_bad_loses_line_is_an_error_naming_the_file(tmp_path: Path, kind: str, loses: str, why: str) -> None:
    path = _catalogue(tmp_path, kind, loses)
    with pytest.raises(CatalogueError) as info:
        load_catalogue(load_assignment(tmp_path / "assignment.yaml", known_checks()))
    assert str(info.value).startswith(f"{path}: {why}")


def test_every_port_names_its_source() -> None:
    """A catalogue entry that ports public code says where from (project and file or section)."""
    entries = load_catalogue(load_assignment(DEFAULT_ASSIGNMENT, known_checks()))
    ports = [e for e in entries if "# Source:" in e.code]
    assert len(ports) >= 30
    for entry in ports:
        source = entry.code.split("# Source:", 1)[1].split("\n", 1)[0]
        assert len(source.strip()) > 10, entry.name
