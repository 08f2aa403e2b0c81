"""End to end: the real CLI names a student's known mistakes in every output that carries a
failure (results.json, Markdown and HTML feedback, the class report, JUnit, Gradescope,
PrairieLearn), says nothing for a correct student, and nothing at all with --no-diagnose."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"
CATALOGUE = ROOT / "assignments" / "attention" / "catalogue" / "mutants"
SENTENCE = ("This matches a known mistake: the scores are not divided by √d_k before the softmax.")
FORMATS = "csv,json,markdown,html,report,junit,gradescope,prairielearn"


def _class(root: Path) -> Path:
    class_dir = root / "class"
    for name, tail in (("Ada", ""), ("Bo Slip", (CATALOGUE / "sdpa_no_scale.py").read_text(encoding="utf-8"))):
        folder = class_dir / name
        folder.mkdir(parents=True)
        (folder / "attention_numpy.py").write_text((REFERENCE / "attention_numpy.py").read_text() + "\n\n" + tail)
        (folder / "attention_torch.py").write_text((REFERENCE / "attention_torch.py").read_text())
    return class_dir


def _grade(class_dir: Path, out: Path, *extra: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(class_dir), "--out", str(out), "--seed", "4",
                           "--jobs", "1", "--no-progress", *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diagnose")
    _grade(_class(root), root / "out", "--format", FORMATS)
    return root / "out"


def _items(out: Path, student: str) -> dict[str, dict]:
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (entry,) = [s for s in results["students"] if s["student"] == student]
    return {item["name"]: item for item in entry["items"]}


def test_results_json_names_the_mistake_on_its_item_only(out: Path) -> None:
    items = _items(out, "Bo Slip")
    assert items["scaled_dot_product_attention"]["diagnoses"] == [{"mistake": "sdpa_no_scale", "message": SENTENCE}]
    assert all(item["diagnoses"] == [] for name, item in items.items() if name != "scaled_dot_product_attention")
    assert all(item["diagnoses"] == [] for item in _items(out, "Ada").values())


def test_feedback_says_the_sentence_under_the_item(out: Path) -> None:
    markdown = (out / "feedback" / "Bo Slip.md").read_text(encoding="utf-8")
    section = markdown.split("## `scaled_dot_product_attention`")[1].split("## ")[0]
    assert f"> {SENTENCE}" in section
    assert markdown.count("known mistake") == 1
    assert "known mistake" not in (out / "feedback" / "Ada.md").read_text(encoding="utf-8")
    html = (out / "feedback" / "Bo Slip.html").read_text(encoding="utf-8")
    assert f'<p class="diagnosis">{SENTENCE}</p>' in html


def test_the_class_report_counts_the_mistake_and_names_the_student(out: Path) -> None:
    report = (out / "report.html").read_text(encoding="utf-8")
    section = report.split('<h2 id="mistakes">Known mistakes</h2>')[1].split("<h2")[0]
    assert '<td class="num">1</td>' in section and "<code>sdpa_no_scale</code>" in section
    assert "Bo Slip" in section and "Ada" not in section
    assert "<code>scaled_dot_product_attention</code>: the scores are not divided by √d_k" in section


def test_the_per_check_formats_carry_the_sentence_in_the_failure_text(out: Path) -> None:
    suites = ET.parse(out / "junit.xml").getroot()
    (bo,) = [s for s in suites if s.get("name") == "Bo Slip"]
    failures = [f.get("message", "") for f in bo.iter("failure")]
    assert failures and all(SENTENCE in m for m in failures)
    for folder in ("gradescope", "prairielearn"):
        tests = json.loads((out / folder / "Bo Slip.json").read_text(encoding="utf-8"))["tests"]
        failed = [t["output"] for t in tests if t["output"] != "passed"]
        assert failed and all(t.endswith(SENTENCE) for t in failed)
        assert not any(SENTENCE in t["output"] for t in tests if t["output"] == "passed")


def test_no_diagnose_names_nothing(tmp_path: Path) -> None:
    _grade(_class(tmp_path), tmp_path / "out", "--no-diagnose")
    items = _items(tmp_path / "out", "Bo Slip")
    assert items["scaled_dot_product_attention"]["earned"] < items["scaled_dot_product_attention"]["points"]
    assert all(item["diagnoses"] == [] for item in items.values())
    assert "known mistake" not in (tmp_path / "out" / "feedback" / "Bo Slip.md").read_text(encoding="utf-8")
