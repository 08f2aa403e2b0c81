"""A Gradescope submission read as a class folder's student is: misnamed notebooks graded for
what they hold, through the autograder's own entry point (``python -m grader.gradescope_zip``),
here on the bundle as it lies in the project rather than on a built zip (tests/test_gradescope_zip.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle

pytest.importorskip("torch")

BUNDLE = load_bundle(BUNDLE_PATH)
SOLVED = BUNDLE.root / "sample_class" / "Ada Lovelace" / BUNDLE.assignment.name
NUMPY, TORCH = BUNDLE.assignment.notebooks
PROJECT = Path(__file__).resolve().parents[1]


def test_a_submission_of_misnamed_notebooks_gets_full_marks_and_is_told_which_file_was_taken(tmp_path: Path):
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "source" / "assignment").symlink_to(BUNDLE.root)
    # Uploaded as students do: one under another name, one in a folder named like the assignment.
    upload = root / "submission"
    (upload / BUNDLE.assignment.name).mkdir(parents=True)
    shutil.copyfile(SOLVED / f"{NUMPY}.ipynb", upload / "Attention_Numpy_final.ipynb")
    shutil.copyfile(SOLVED / f"{TORCH}.ipynb", upload / BUNDLE.assignment.name / "attention torch.ipynb")
    done = subprocess.run([sys.executable, "-m", "grader.gradescope_zip", str(root)], cwd=PROJECT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert data["score"] == sum(item.points for item in BUNDLE.assignment.items)
    assert f"graded Attention_Numpy_final.ipynb for {NUMPY}" in data["output"]
    assert f"graded {BUNDLE.assignment.name}/attention torch.ipynb for {TORCH}" in data["output"]
    assert "grader-gradescope-" not in json.dumps(data) + done.stdout  # no temporary folder named
