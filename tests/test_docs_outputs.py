"""The pages that list a run's outputs list what a real run writes: docs/instructors/grade.md's
table (a run with no --format, then its regrade's changes.csv) and docs/instructors/outputs.md's
(a regrade with every format), each compared with the folder the real CLI wrote for the sample
class. Also the written-answer page's export columns, as the docs state them."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import pytest
from readme_commands import ROOT

from grader.records.answers import WRITTEN_CSV_COLUMNS
from grader.reporters import REPORTERS

DOCS = ROOT / "docs"
SAMPLE = ROOT / "assignments" / "attention" / "sample_class"
GRADEBOOK = ROOT / "assignments" / "attention" / "sample_lms" / "canvas_gradebook.csv"
# `OUT/feedback/<student>.md` in a table's first cell.
LISTED = re.compile(r"^\| `OUT/([^`]+)` \|", re.M)


def grade(out: Path, *options: str) -> None:
    subprocess.run([sys.executable, "-m", "grader", "grade", str(SAMPLE), "--out", str(out), "--no-progress",
                    *options], check=True, cwd=ROOT, capture_output=True)


def written(out: Path, students: set[str], questions: set[str]) -> set[str]:
    """The files under ``out``, each student's and each question's name as the pages write it."""
    found = set()
    for path in out.rglob("*"):
        if path.is_file():
            parts = list(path.relative_to(out).parts)
            stem, dot, suffix = parts[-1].partition(".")
            name = "<student>" if stem in students else "<question>" if stem in questions else stem
            found.add("/".join([*parts[:-1], name + dot + suffix]))
    return found


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[set[str], set[str]]:
    """What a first run writes with no --format, and then a regrade with every format."""
    out = tmp_path_factory.mktemp("docs-outputs") / "OUT"
    grade(out)
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        students = {row["student"] for row in csv.DictReader(handle)}
    with open(out / "written.csv", newline="", encoding="utf-8") as handle:
        questions = {row["question"] for row in csv.DictReader(handle)}
    first = written(out, students, questions)
    grade(out, "--format", ",".join(REPORTERS), "--canvas-gradebook", str(GRADEBOOK), "--canvas-column", "Attention")
    # What the pages say of the folder beside OUT: the lock is removed as a run ends, nothing else is left.
    assert [path.name for path in out.parent.iterdir()] == ["OUT"]
    return first, written(out, students, questions)


def listed(page: str) -> set[str]:
    return set(LISTED.findall((DOCS / page).read_text(encoding="utf-8")))


def test_the_grading_page_lists_what_a_run_writes(runs):
    first, _ = runs
    assert listed("instructors/grade.md") == first | {"changes.csv"}


def test_the_formats_page_lists_what_a_run_with_every_format_writes(runs):
    _, every = runs
    assert "changes.csv" in every and ".grader-run.json" in every
    assert listed("instructors/outputs.md") == every


def test_the_listed_paths_are_read_from_a_tables_first_cell():
    assert LISTED.findall("| `OUT/a.csv` | x |\n| `OUT/b/<student>.md` | y |\n") == ["a.csv", "b/<student>.md"]


def test_the_docs_say_the_grading_pages_export_columns():
    page = (DOCS / "instructors" / "written-answers.md").read_text(encoding="utf-8")
    said = re.search(r"The exported file has the columns ([^.;]+)", page)
    assert said is not None
    assert re.findall(r"`(\w+)`", said.group(1)) == list(WRITTEN_CSV_COLUMNS)
