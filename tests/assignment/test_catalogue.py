"""Catalogue entries: the header lines are validated on load, with errors naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import Bundle, load_bundle
from grader.assignment.catalogue import CatalogueError, load_catalogue

BUNDLE = load_bundle(BUNDLE_PATH)

ENTRY = '''"""softmax without the max shift."""
# item: softmax
{loses}
import numpy as np


def softmax(x, axis=-1):
    return np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)
'''


def _catalogue(tmp_path: Path, kind: str, loses: str) -> Path:
    """One entry in ``tmp_path / "catalogue"``, the catalogue of a copy of the attention YAML
    (with the real checks and reference)."""
    raw = yaml.safe_load(BUNDLE_PATH.read_text(encoding="utf-8"))
    raw["bundle"] = {**raw["bundle"], "checks": str(BUNDLE.root / "checks"), "reference": str(BUNDLE.reference_dir)}
    (tmp_path / "assignment.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    folder = tmp_path / "catalogue" / f"{kind}s"
    folder.mkdir(parents=True)
    path = folder / "entry.py"
    path.write_text(ENTRY.format(loses=loses), encoding="utf-8")
    return path


def _bundle(tmp_path: Path) -> Bundle:
    return load_bundle(tmp_path / "assignment.yaml")


def test_loses_names_the_checks_a_mutant_must_fail(tmp_path: Path) -> None:
    _catalogue(tmp_path, "mutant", "# loses: stable_for_large_inputs, rows_sum_to_one")
    (entry,) = load_catalogue(_bundle(tmp_path))
    assert entry.loses == ("stable_for_large_inputs", "rows_sum_to_one")


def test_without_loses_a_mutant_must_only_lose_points(tmp_path: Path) -> None:
    _catalogue(tmp_path, "mutant", "")
    (entry,) = load_catalogue(_bundle(tmp_path))
    assert entry.loses == ()


def test_says_names_phrases_of_the_first_lost_checks_message(tmp_path: Path) -> None:
    _catalogue(tmp_path, "mutant", "# loses: stable_for_large_inputs, rows_sum_to_one\n# says: non-finite | NaN ")
    (entry,) = load_catalogue(_bundle(tmp_path))
    assert entry.says == ("non-finite", "NaN")


@pytest.mark.parametrize("kind, loses, why", [
    ("mutant", "# loses: made_up", "'# loses: made_up' is not a check of softmax"),
    ("alternative", "# loses: rows_sum_to_one", "only a mutant has a '# loses:' line"),
    ("mutant", "# says: non-finite", "a '# says:' line needs a '# loses:' line"),
])
def test_a_bad_loses_line_is_an_error_naming_the_file(tmp_path: Path, kind: str, loses: str, why: str) -> None:
    path = _catalogue(tmp_path, kind, loses)
    with pytest.raises(CatalogueError) as info:
        load_catalogue(_bundle(tmp_path))
    assert str(info.value).startswith(f"{path}: {why}")


def test_every_port_names_its_source() -> None:
    """A catalogue entry that ports public code says where from (project and file or section)."""
    entries = load_catalogue(BUNDLE)
    ports = [e for e in entries if "# Source:" in e.code]
    assert len(ports) >= 30
    for entry in ports:
        source = entry.code.split("# Source:", 1)[1].split("\n", 1)[0]
        assert len(source.strip()) > 10, entry.name


def test_entry_names_are_unique_across_mutants_and_alternatives() -> None:
    """Tests and the audit look entries up by name: a mutant and an alternative must not share one."""
    names = [e.name for e in load_catalogue(BUNDLE)]
    assert len(names) == len(set(names)), sorted(n for n in set(names) if names.count(n) > 1)


@pytest.mark.parametrize("first, why", [
    ("softmax with exp(x) and no shift.", "never a value or code (it holds '(')"),
    ("inputs of magnitude 1e3 overflow.", "never a value or code (it holds '1')"),
    ("uses np.sum without keepdims.", "never a value or code (it holds 'p.s')"),
    ("the maximum is not subtracted", "one sentence, ending with a period"),
])
def test_a_mutants_first_line_is_a_students_sentence(tmp_path: Path, first: str, why: str) -> None:
    """What a student reads when the diagnosis names the mistake: the idea, never a value or code."""
    path = _catalogue(tmp_path, "mutant", "")
    path.write_text(path.read_text(encoding="utf-8").replace("softmax without the max shift.", first),
                    encoding="utf-8")
    with pytest.raises(CatalogueError) as info:
        load_catalogue(_bundle(tmp_path))
    assert str(info.value).startswith(f"{path}: the docstring's first line is what a student reads")
    assert why in str(info.value)
    path.parent.rename(path.parent.with_name("alternatives"))  # an alternative's line is the instructor's
    assert len(load_catalogue(_bundle(tmp_path))) == 1
