"""The generated sample students are exactly what the reference and the catalogue give."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT, ConfigError
from grader.generate.sample_class import sample_students, write_student

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
SAMPLE = BUNDLE.root / "sample_class"


@pytest.mark.parametrize("student", sample_students(BUNDLE), ids=lambda s: s.name)
def test_the_committed_copy_is_what_the_generator_writes(student, tmp_path: Path):
    class_dir = tmp_path / "class"
    class_dir.mkdir()
    if student.base is not None:
        shutil.copytree(SAMPLE / student.base, class_dir / student.base)
    written = write_student(student, class_dir, BUNDLE)
    files = sorted(p.relative_to(written) for p in written.rglob("*") if p.is_file())
    committed = SAMPLE / student.name
    assert files == sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
    for rel in files:
        assert (written / rel).read_bytes() == (committed / rel).read_bytes(), (
            f"{committed / rel} differs from what the generator writes: python -m grader.generate.sample_class")


def test_an_unknown_entry_is_an_error_naming_the_file_and_student(tmp_path: Path):
    spec = BUNDLE.root / "sample_students.yaml"
    monkey = dataclasses.replace(BUNDLE, root=tmp_path)
    (tmp_path / spec.name).write_text("Someone:\n  entries: [no_such_entry]\n")
    with pytest.raises(ConfigError, match=r"sample_students.yaml: Someone.entries: no_such_entry not in the catalogue"):
        sample_students(monkey)
