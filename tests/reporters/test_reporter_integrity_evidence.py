"""The integrity report lists only evidence, through the real CLI: in a class of a correct
student, a copy of it with mistakes, the release handed in unchanged, and the solution with its
local names changed."""

from __future__ import annotations

import csv
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from test_reporter_integrity import grade

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integrity"))
from test_origins import renamed  # noqa: E402

pytest.importorskip("torch")
SAMPLE = ROOT / "assignments" / "attention" / "sample_class"


def renamed_notebook(source: Path, target: Path) -> None:
    notebook = json.loads(source.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and "def " in text:
            cell["source"] = renamed(text)
    target.write_text(json.dumps(notebook), encoding="utf-8")


def test_a_class_of_three_and_a_renamed_solution_lists_only_evidence(tmp_path):
    for student in ("Ada Lovelace", "Blank Student", "Zoë Çelik"):
        shutil.copytree(SAMPLE / student, tmp_path / "class" / student)
    (tmp_path / "class" / "Rena Med" / "attention").mkdir(parents=True)
    for notebook in ("attention_numpy", "attention_torch"):
        renamed_notebook(SAMPLE / "Ada Lovelace" / "attention" / f"{notebook}.ipynb",
                         tmp_path / "class" / "Rena Med" / "attention" / f"{notebook}.ipynb")
    done = grade(tmp_path / "class", tmp_path / "out", "csv,integrity")
    assert done.returncode == 0, done.stderr[-3000:]
    with open(tmp_path / "out" / "integrity.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert all(r["items"] for r in rows), rows
    page = (tmp_path / "out" / "integrity.html").read_text(encoding="utf-8")
    assert "Blank Student" not in page and "0 items" not in page
    assert "catalogue/" not in page  # a mutant is the solution with one mistake: no source of correct code
    solution = page.split('<h2 id="solution">')[1].split("<h2")[0]
    assert re.search(r"Rena Med: matches the instructor's solution on (\d\d|[89]) items", solution), solution
    # Every listed pair shows each of its items' code side by side.
    assert page.count('<div class="side">') == sum(len(r["items"].split(";")) for r in rows)


def test_the_release_handed_in_unchanged_is_in_no_pair_and_no_group(tmp_path):
    # The class of three as an instructor tried it: every pair and a "group of three" were listed, on 0 items.
    for student in ("Ada Lovelace", "Blank Student", "Zoë Çelik"):
        shutil.copytree(SAMPLE / student, tmp_path / "class" / student)
    done = grade(tmp_path / "class", tmp_path / "out", "csv,integrity")
    assert done.returncode == 0, done.stderr[-3000:]
    with open(tmp_path / "out" / "integrity.csv", newline="", encoding="utf-8") as handle:
        assert all(r["items"] and "Blank Student" not in (r["student_a"], r["student_b"])
                   for r in csv.DictReader(handle))
    page = (tmp_path / "out" / "integrity.html").read_text(encoding="utf-8")
    assert "Blank Student" not in page and 'id="clusters"' not in page
