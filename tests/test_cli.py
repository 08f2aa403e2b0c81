"""End to end: the real CLI on the bundled sample class."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.bundle import load_bundle
from grader.config import DEFAULT_ASSIGNMENT

pytest.importorskip("torch")

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
SAMPLE = BUNDLE.root / "sample_class"
NUMPY_ITEMS = [item.name for item in BUNDLE.assignment.items_of("attention_numpy")]
TORCH_ITEMS = [item.name for item in BUNDLE.assignment.items_of("attention_torch")]


def short_limit_copy(tmp: Path) -> Path:
    """The same bundle with a short time limit, so the hanging student costs little."""
    config = yaml.safe_load(DEFAULT_ASSIGNMENT.read_text())
    config["limits"]["item_seconds"] = 4
    config["bundle"] = {**config["bundle"], "checks": str(BUNDLE.root / "checks"),
                        "reference": str(BUNDLE.reference_dir), "catalogue": str(BUNDLE.catalogue_dir)}
    assignment = tmp / "assignment.yaml"
    assignment.write_text(yaml.safe_dump(config))
    return assignment


def grade(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "grade", *args], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    tmp = tmp_path_factory.mktemp("cli")
    assignment = short_limit_copy(tmp)
    out = tmp / "out"
    proc = grade([str(SAMPLE), "--out", str(out), "--seed", "11", "--jobs", "2", "--assignment", str(assignment)])
    return out, proc


def rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_the_run_succeeds_and_prints_a_summary(run):
    out, proc = run
    assert proc.returncode == 0, proc.stderr
    assert "6 students graded; class mean" in proc.stdout
    assert "seed 11" in proc.stdout
    assert "grading 6 submissions with seed 11" in proc.stderr


def test_grades_csv_has_every_student_and_the_contract_columns(run):
    out, _ = run
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == ["student", "score", "max_score", *NUMPY_ITEMS, *TORCH_ITEMS]
    grades = rows(out)
    assert sorted(grades) == sorted(p.name for p in SAMPLE.iterdir())
    assert {row["max_score"] for row in grades.values()} == {"100"}


def test_each_kind_of_student_gets_the_grade_it_deserves(run):
    grades = rows(run[0])
    assert grades["Ada Lovelace"]["score"] == "100"
    assert grades["Blank Student"]["score"] == "0"
    assert grades["broken_upload"]["score"] == "0"
    grace = grades["Grace Hopper"]
    assert [grace[i] for i in TORCH_ITEMS] == ["0", "0", "0"] and grace["score"] == "70"
    lukasz = grades["Łukasz Nowak"]
    assert lukasz["causal_mask"] == "0" and lukasz["score"] == "95"
    zoe = grades["Zoë Çelik"]
    broken = {"softmax", "scaled_dot_product_attention", "positional_encoding", "split_heads",
              "MultiHeadAttention", "BahdanauAttention"}
    full = json.loads((run[0] / "results.json").read_text())
    points = {i["name"]: i["points"] for i in full["students"][0]["items"]}
    for item in NUMPY_ITEMS + TORCH_ITEMS:
        assert (float(zoe[item]) < points[item]) == (item in broken), item


def test_results_json_records_the_seed_sandbox_and_every_check(run):
    data = json.loads((run[0] / "results.json").read_text())
    assert data["run"]["seed"] == 11
    assert set(data["run"]["sandbox"]) == {"namespaces", "drop_uid", "notes"}
    ada = next(s for s in data["students"] if s["student"] == "Ada Lovelace")
    assert all(c["passed"] for item in ada["items"] for c in item["checks"])
    lukasz = next(s for s in data["students"] if s["student"] == "Łukasz Nowak")
    causal = next(i for i in lukasz["items"] if i["name"] == "causal_mask")
    assert "time limit" in causal["checks"][0]["message"]


def test_feedback_names_the_broken_property_without_reference_values(run):
    out = run[0]
    text = (out / "feedback" / "Zoë Çelik.md").read_text(encoding="utf-8")
    assert "**Score:" in text and "`scaled_dot_product_attention`" in text and "**failed**" in text
    broken = (out / "feedback" / "broken_upload.md").read_text(encoding="utf-8")
    assert "invalid JSON" in broken and "SyntaxError" in broken


def test_the_same_seed_reproduces_the_grades(run, tmp_path: Path):
    out, _ = run
    again = tmp_path / "again"
    assignment = short_limit_copy(tmp_path)
    proc = grade([str(SAMPLE), "--out", str(again), "--seed", "11", "--jobs", "1", "--assignment", str(assignment)])
    assert proc.returncode == 0, proc.stderr
    assert (again / "grades.csv").read_bytes() == (out / "grades.csv").read_bytes()


def test_bad_input_is_a_clear_error(tmp_path: Path):
    proc = grade([str(tmp_path / "missing"), "--out", str(tmp_path / "o")])
    assert proc.returncode == 2 and "not a folder of student submissions" in proc.stderr
    bad = tmp_path / "a.yaml"
    bad.write_text("assignment: x\n")
    proc = grade([str(SAMPLE), "--out", str(tmp_path / "o"), "--assignment", str(bad)])
    assert proc.returncode == 2 and f"{bad}: items: missing" in proc.stderr
    proc = grade([str(SAMPLE), "--out", str(SAMPLE / "Ada Lovelace" / "out")])
    assert proc.returncode == 2 and "must not be inside the class folder" in proc.stderr
