"""Assignment bundles: the engine grades any bundle folder and knows nothing of the attention one.

The proof is a toy bundle written here (one item, ``relu``: a reference, two checks and a
catalogue mutant), graded with the real command line and audited, with no file of
``grader/`` naming it.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from grader.assignment.bundle import load_bundle, read_outline
from grader.assignment.config import DEFAULT_ASSIGNMENT, ConfigError

ROOT = Path(__file__).resolve().parents[2]

TOY_YAML = """\
assignment: toy
bundle:
  checks: checks
  reference: toyref
  catalogue: catalogue
  warm: [numpy]
notebooks:
  toy_nb:
    items: [relu]
limits: {load_seconds: 30, cell_seconds: 5, item_seconds: 5, memory_mb: 1024, processes: 16,
         file_size_mb: 4, output_kb: 16, reply_mb: 4}
tolerances:
  float64: {rtol: 1.0e-7, atol: 1.0e-9}
  float32: {rtol: 2.0e-4, atol: 2.0e-5}
items:
  relu:
    checks:
      keeps_shape: 1
      matches_reference: 2
"""

TOY_CHECKS = '''\
"""The toy bundle's checks."""
from grader.assignment.registry import Registry

REGISTRY = Registry()

from . import relu_checks  # noqa: E402,F401
'''

TOY_RELU_CHECKS = '''\
from toyref import toy_nb as ref

from grader.checks.base import Args, Trial, as_array
from grader.checks.expect import expect_close, expect_shape

from . import REGISTRY


@REGISTRY.check("relu", "keeps_shape")
def keeps_shape(t: Trial) -> None:
    x = t.rng.normal(size=(3, 4))
    (reply,) = t.call_each([Args(x)])
    expect_shape(as_array(reply, "relu(x)"), x.shape, "relu(x)")


@REGISTRY.check("relu", "matches_reference")
def matches_reference(t: Trial) -> None:
    x = t.rng.normal(size=(5, 6))
    (reply,) = t.call_each([Args(x)])
    expect_close(t, as_array(reply, "relu(x)"), t.reference(ref.relu, x), "relu(x)", "max(x, 0)")
'''

TOY_REFERENCE = '''\
import numpy as np


def relu(x):
    return np.maximum(x, 0.0)
'''

TOY_MUTANT = '''\
"""relu that leaks: negative inputs keep a tenth of their value."""
# item: relu
import numpy as np


def relu(x):
    return np.where(x > 0, x, 0.1 * x)
'''


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bundles") / "toy"
    write(root / "assignment.yaml", TOY_YAML)
    write(root / "checks" / "__init__.py", TOY_CHECKS)
    write(root / "checks" / "relu_checks.py", TOY_RELU_CHECKS)
    write(root / "toyref" / "__init__.py", "")
    write(root / "toyref" / "toy_nb.py", TOY_REFERENCE)
    write(root / "catalogue" / "mutants" / "relu_leaky.py", TOY_MUTANT)
    return root


@pytest.fixture(scope="module")
def toy_class(toy: Path) -> Path:
    class_dir = toy.parent / "class"
    write(class_dir / "alice" / "toy_nb.py", TOY_REFERENCE)
    write(class_dir / "bob" / "toy_nb.py", TOY_MUTANT)
    (class_dir / "carol").mkdir()
    return class_dir


def grade(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "grade", *args], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


@pytest.mark.parametrize("given", ["folder", "yaml"])
def test_a_toy_bundle_is_graded_by_the_real_cli(toy: Path, toy_class: Path, tmp_path: Path, given: str):
    bundle = toy if given == "folder" else toy / "assignment.yaml"
    out = tmp_path / "out"
    proc = grade([str(toy_class), "--out", str(out), "--seed", "3", "--jobs", "1", "--assignment", str(bundle)])
    assert proc.returncode == 0, proc.stderr
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["student", "score", "max_score", "relu"]
    assert {row[0]: row[1:] for row in rows[1:]} == {"alice": ["3", "3", "3"], "bob": ["1", "3", "1"],
                                                    "carol": ["0", "3", "0"]}
    bob = (out / "feedback" / "bob.md").read_text(encoding="utf-8")
    assert "`matches_reference` (2 pt) **failed**" in bob and "differs from max(x, 0): by up to" in bob
    run = json.loads((out / "results.json").read_text(encoding="utf-8"))["run"]
    assert run["assignment"] == str(toy / "assignment.yaml")


def test_the_chosen_reporters_write_beside_the_core_outputs(toy: Path, toy_class: Path, tmp_path: Path):
    out = tmp_path / "out"
    proc = grade([str(toy_class), "--out", str(out), "--jobs", "1", "--assignment", str(toy),
                  "--report", "grades-csv", "--format", "junit"])
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [".grader-run.json", "feedback", "grades.csv", "junit.xml",
                                                     "results.json"]


def test_the_toy_audit_catches_its_mutant(toy: Path):
    from grader.audit import audit

    report = audit(toy, seed=4, jobs=1, stubs=False, log=lambda line: None)
    assert [(c.kind, c.name, c.verdict) for c in report.cases] == [("reference", "reference", "ok"),
                                                                  ("mutant", "relu_leaky", "caught")]
    assert report.cases[1].checks == ("matches_reference",)


def test_no_engine_file_names_an_item_of_the_attention_bundle():
    items = [item.name for item in load_bundle(DEFAULT_ASSIGNMENT).assignment.items]
    assert len(items) >= 14  # the pattern below is not empty
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, items)) + r")\b")
    named = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "grader").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if pattern.search(line)]
    assert named == []


def test_each_bundle_has_its_own_registry(toy: Path):
    attention, other = load_bundle(DEFAULT_ASSIGNMENT), load_bundle(toy)
    assert set(other.checks.known()) == {"relu"}
    assert "relu" not in attention.checks.known() and "softmax" in attention.checks.known()
    assert load_bundle(toy / "assignment.yaml").checks is other.checks  # imported once per folder


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["bundle"].update(extra=1), "bundle.extra: unknown key"),
        (lambda d: d["bundle"].update(checks="nowhere"), "bundle.checks: "),
        (lambda d: d["bundle"].update(reference="checks/__pycache__"), "bundle.reference: "),
        (lambda d: d["bundle"].update(warm="numpy"), "bundle.warm: expected a list of module names"),
        (lambda d: d["bundle"].update(warm_for_students=[""]), "bundle.warm_for_students: expected a list of module"),
        (lambda d: d["items"]["relu"]["checks"].update(made_up=1), "items.relu.checks.made_up: unknown check"),
    ],
)
def test_bundle_errors_name_the_file_and_the_key(toy: Path, tmp_path: Path, edit, message: str):
    raw = yaml.safe_load((toy / "assignment.yaml").read_text(encoding="utf-8"))
    raw["bundle"] = {**raw["bundle"], "checks": str(toy / "checks"), "reference": str(toy / "toyref")}
    edit(raw)
    path = tmp_path / "assignment.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_bundle(path)
    assert str(info.value).startswith(f"{path}: {message}"), info.value


def test_the_outline_reads_the_yaml_alone_and_the_bundle_completes_it(toy: Path, tmp_path: Path):
    write(tmp_path / "unread" / "__init__.py", "raise RuntimeError('imported')\n")
    raw = yaml.safe_load((toy / "assignment.yaml").read_text(encoding="utf-8"))
    raw["bundle"] = {**raw["bundle"], "checks": "unread", "reference": str(toy / "toyref"),
                     "warm_for_students": ["json"]}
    write(tmp_path / "assignment.yaml", yaml.safe_dump(raw))
    outline = read_outline(tmp_path)  # its checks not imported
    assert (outline.assignment.notebooks, outline.warm, outline.warm_for_students) == (("toy_nb",), ("numpy",),
                                                                                      ("json",))
    with pytest.raises(ConfigError, match="bundle.checks: importing .* failed: RuntimeError: imported"):
        load_bundle(outline)
    raw["bundle"]["checks"] = str(toy / "checks")
    raw["items"]["relu"]["checks"]["made_up"] = 1  # only the checks package can say so
    write(tmp_path / "assignment.yaml", yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="items.relu.checks.made_up: unknown check"):
        load_bundle(read_outline(tmp_path))
    del raw["items"]["relu"]["checks"]["made_up"]
    write(tmp_path / "assignment.yaml", yaml.safe_dump(raw))
    bundle = load_bundle(read_outline(tmp_path / "assignment.yaml"))
    assert (bundle.warm, bundle.warm_for_students) == (("numpy",), ("json",))


def test_checks_without_a_registry_are_a_clear_error(toy: Path, tmp_path: Path):
    write(tmp_path / "checks" / "__init__.py", "CHECKS = {}\n")
    raw = yaml.safe_load((toy / "assignment.yaml").read_text(encoding="utf-8"))
    raw["bundle"]["reference"] = str(toy / "toyref")
    write(tmp_path / "assignment.yaml", yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="bundle.checks: .* defines no REGISTRY"):
        load_bundle(tmp_path)
