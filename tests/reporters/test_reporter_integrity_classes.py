"""The integrity report through the real CLI on the harder classes
(``benchmarks/integrity_converging.py``): students who converge strongly, and each disguise a
copier would use in a class of its own."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from test_reporter_integrity import grade

from benchmarks.integrity_converging import KINDS, build
from grader.reporters.integrity_report import COLUMNS

pytest.importorskip("torch")


def listed(out: Path) -> set[frozenset[str]]:
    with open(out / "integrity.csv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        return {frozenset((r["student_a"], r["student_b"])) for r in reader}


def test_a_class_of_40_with_no_copying_gives_an_empty_integrity_csv(tmp_path):
    build(tmp_path / "class", 40, seed=11, kinds=())
    done = grade(tmp_path / "class", tmp_path / "out", "csv,integrity")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "out" / "integrity.csv").read_text(encoding="utf-8") == ",".join(COLUMNS) + "\n"
    assert "integrity: 0 pairs of students to look at" in done.stdout


@pytest.mark.parametrize("kind", KINDS)
def test_each_disguise_in_a_small_class_of_its_own_is_listed(tmp_path, kind):
    planted = build(tmp_path / "class", 20, seed=1, kinds=[kind])
    done = grade(tmp_path / "class", tmp_path / "out", "csv,integrity")
    assert done.returncode == 0, done.stderr[-3000:]
    found = listed(tmp_path / "out")
    copies = {frozenset((a, b)) for a, b, _ in planted}
    assert copies <= found, (kind, planted, found)
    assert len(found - copies) <= 2  # honest pairs on the list, whatever the class's size
