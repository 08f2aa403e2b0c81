"""The llm_attention bundle through the real command line, on real folders: a class graded in
sandboxes, where the whole score matrix costs the memory check alone and the feedback names the
mistake; and the release's check.py, which passes the solved notebook."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

from grader.assignment.bundle import load_bundle

ROOT = Path(__file__).resolve().parents[3]
BUNDLE = ROOT / "assignments" / "llm_attention"


def grader(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def test_a_class_is_graded_and_the_whole_score_matrix_costs_the_memory_check_alone(tmp_path):
    reference = (ROOT / "reference" / "llm_numpy.py").read_text()
    whole = (BUNDLE / "catalogue" / "mutants" / "blockwise_whole_matrix.py").read_text()
    for student, code in [("correct", reference), ("whole_matrix", reference + "\n\n" + whole)]:
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "llm_numpy.py").write_text(code)
    (tmp_path / "class" / "notebook_student").mkdir()
    shutil.copy(BUNDLE / "llm_numpy.ipynb", tmp_path / "class" / "notebook_student")
    done = grader("grade", str(tmp_path / "class"), "--assignment", str(BUNDLE), "--out", str(tmp_path / "out"),
                  "--seed", "7", "--no-progress")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out" / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    for student in ("correct", "notebook_student"):
        assert rows[student]["blockwise_attention"] == "16" and rows[student]["apply_rotary"] == "13", rows[student]
    assert rows["whole_matrix"]["blockwise_attention"] == "14"
    assert {rows["whole_matrix"][item] for item in ("apply_rotary", "alibi_bias", "sliding_window_mask")} == \
        {"13", "12", "8"}
    feedback = (tmp_path / "out" / "feedback" / "whole_matrix.md").read_text()
    assert "`never_holds_the_score_matrix` (2 pt) **failed**" in feedback
    assert "This matches a known mistake: the whole score matrix is built at once" in feedback


def test_the_release_check_py_passes_the_solved_notebook(tmp_path):
    done = grader("release", "--assignment", str(BUNDLE), "--out", str(tmp_path / "release"))
    assert done.returncode == 0, done.stderr
    solved = tmp_path / "solved"
    solved.mkdir()
    shutil.copy(tmp_path / "release" / "check.py", solved)
    shutil.copy(BUNDLE / "llm_numpy.ipynb", solved)
    run = subprocess.run([sys.executable, "check.py", "llm_numpy.ipynb"], capture_output=True, text=True,
                         cwd=solved, timeout=300, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout + run.stderr
    public = sum(len(item.public) for item in load_bundle(BUNDLE).assignment.items_of("llm_numpy"))
    assert f"{public} of {public} public checks passed" in run.stdout
