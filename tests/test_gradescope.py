"""End to end: ``python -m grader gradescope`` builds the autograder zip; unpacked into an
``/autograder``-shaped folder, its ``run_autograder`` grades a sample student with the zip's own
copy of the grader and writes a results.json in Gradescope's format."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
from test_reporter_gradescope import GRADESCOPE

from grader.bundle import load_bundle
from grader.config import DEFAULT_ASSIGNMENT, parse_assignment, read_yaml

pytest.importorskip("torch")

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
SAMPLE = BUNDLE.root / "sample_class"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("gradescope")
    built = subprocess.run([sys.executable, "-m", "grader", "gradescope", "--out", str(tmp / "autograder.zip")],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    root = tmp / "autograder"
    with zipfile.ZipFile(tmp / "autograder.zip") as archive:
        archive.extractall(root)
        for info in archive.infolist():  # extractall drops the modes
            os.chmod(root / info.filename, info.external_attr >> 16)
    return root


def run_autograder(root: Path) -> subprocess.CompletedProcess[str]:
    # The grader's dependencies are those of this interpreter (setup.sh's venv is not built here).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AUTOGRADER_ROOT")}
    env.update(AUTOGRADER_ROOT=str(root), GRADER_PYTHON=sys.executable)
    return subprocess.run([str(root / "run_autograder")], capture_output=True, text=True, timeout=600, env=env,
                          cwd="/")


def test_the_zip_holds_setup_and_run_and_no_other_students_work(root: Path):
    assert os.access(root / "setup.sh", os.X_OK) and os.access(root / "run_autograder", os.X_OK)
    setup = (root / "setup.sh").read_text()
    assert "--index-url https://download.pytorch.org/whl/cpu torch==2.13.0" in setup
    assert 'install -r "$ROOT/source/requirements.txt"' in setup
    pins = [line for line in (root / "source" / "requirements.txt").read_text().splitlines()
            if line and not line.startswith("#")]
    assert pins and all("==" in pin for pin in pins) and any(pin.startswith("numpy==") for pin in pins)
    assert not any(pin.startswith(("torch", "nbgrader", "pytest")) for pin in pins)
    names = {p.relative_to(root).as_posix() for p in root.rglob("*")}
    assert "source/assignment/assignment.yaml" in names and "source/reference/attention_numpy.py" in names
    assert not any({"sample_class", "catalogue", "__pycache__"} & set(name.split("/")) for name in names)
    yaml_path = root / "source" / "assignment" / "assignment.yaml"
    zipped = parse_assignment(read_yaml(yaml_path), yaml_path)  # not imported: its reference is another copy
    assert [(i.name, i.checks) for i in zipped.items] == [(i.name, i.checks) for i in BUNDLE.assignment.items]


def test_run_autograder_grades_the_submission_into_gradescopes_format(root: Path):
    student = "Zoë Çelik"  # her notebooks, uploaded as Gradescope puts them: straight into submission/
    shutil.copytree(SAMPLE / student / "attention", root / "submission")
    done = run_autograder(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"from {root / 'source' / 'grader'}" in done.stdout  # the zip's grader, not this checkout's
    text = (root / "results" / "results.json").read_text(encoding="utf-8")
    data = json.loads(text)
    jsonschema.validate(data, GRADESCOPE)
    assert data["score"] == 122 and data["stdout_visibility"] == "hidden"  # as tests/test_cli.py's sample run
    checks = [(item.name, check) for item in BUNDLE.assignment.items for check, _ in item.checks]
    assert [t["name"] for t in data["tests"]] == [f"{item}: {check}" for item, check in checks]
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert failed and all(t["output"] and t["output"] != "failed" for t in failed)
    assert str(root) not in text and "source" not in text  # nothing of the autograder's side


def test_a_run_that_cannot_grade_still_writes_results(tmp_path: Path, root: Path):
    broken = tmp_path / "autograder"
    shutil.copytree(root, broken, symlinks=True, ignore=shutil.ignore_patterns("submission", "results"))
    done = run_autograder(broken)  # no submission folder at all
    assert done.returncode == 1
    data = json.loads((broken / "results" / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, GRADESCOPE)
    assert data["score"] == 0 and "could not grade" in data["output"]
