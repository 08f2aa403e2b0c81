"""The generated sample students are exactly what the reference and the catalogue give."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from grader.assignment.config import ConfigError
from grader.generate.sample_class import sample_students, write_student

BUNDLE = load_bundle(BUNDLE_PATH)
SAMPLE = BUNDLE.root / "sample_class"


@pytest.mark.parametrize("student", [s for s in sample_students(BUNDLE) if s.generated], ids=lambda s: s.name)
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


def test_every_sample_student_is_declared(tmp_path: Path):
    # Each one's grade follows from the file: a folder it does not name has no expected grade.
    assert sorted(s.name for s in sample_students(BUNDLE)) == sorted(p.name for p in SAMPLE.iterdir())
    declared = {s.name: s for s in sample_students(BUNDLE)}
    assert all(not s.generated or s.solved == (declared[s.base].solved if s.base else BUNDLE.assignment.notebooks)
               for s in declared.values())


@pytest.mark.parametrize(("text", "says"), [
    ("Someone:\n  solved: [attention_jax]\n", "Someone.solved: expected a list of the notebooks attention_numpy"),
    ("Someone:\n  solved: attention_numpy\n", "Someone.solved: expected a list of the notebooks"),
    ("Someone:\n  from: Nobody\n  entries: []\n", "Someone.from: Nobody is not a sample student above it"),
    ("Someone:\n  solved: []\n  entries: []\n", "Someone: expected the keys 'entries' and, optionally, 'from'"),
    ("Someone: {}\n", "Someone: expected the keys 'entries' and, optionally, 'from'"),
])
def test_a_bad_declaration_is_an_error_naming_the_file_and_student(tmp_path: Path, text: str, says: str):
    monkey = dataclasses.replace(BUNDLE, root=tmp_path)
    (tmp_path / "sample_students.yaml").write_text(text)
    with pytest.raises(ConfigError, match=re.escape(f"sample_students.yaml: {says}")):
        sample_students(monkey)
