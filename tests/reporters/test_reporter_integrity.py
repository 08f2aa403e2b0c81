"""The integrity report end to end: the real CLI on classes with planted copies
(``benchmarks/integrity_class.py``), as an instructor runs it."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from same_outputs import comparable, differences

from benchmarks.integrity_class import build
from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.integrity.fingerprints import definitions
from grader.records.results import NotebookResult, RunInfo, SubmissionResult
from grader.records.rung import Rung
from grader.reporters import open_reporter
from grader.reporters.integrity_report import COLUMNS
from grader.run.outdir import RECORD
from grader.submissions.load import Cell

pytest.importorskip("torch")

SEED = 5
ITEMS = {item.name for item in load_bundle(DEFAULT_ASSIGNMENT).assignment.items}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def grade(class_dir: Path, out: Path, formats: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "grade", str(class_dir), "--out", str(out), "--seed",
                           str(SEED), "--no-progress", "--format", formats, *extra],
                          capture_output=True, text=True, timeout=900)


def rows(out: Path) -> list[dict[str, str]]:
    with open(out / "integrity.csv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        return list(reader)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, str, str]]]:
    """A class of 40 with 8 planted pairs, graded with the integrity report and without."""
    tmp = tmp_path_factory.mktemp("integrity")
    pairs = build(tmp / "class", 40, seed=2)
    for out, formats in (("with", "csv,json,markdown,report,integrity"), ("without", "csv,json,markdown,report")):
        done = grade(tmp / "class", tmp / out, formats)
        assert done.returncode == 0, done.stderr[-3000:]
    return tmp, pairs


def test_planted_copies_are_flagged_and_independent_students_are_not(planted):
    tmp, pairs = planted
    found = rows(tmp / "with")
    flagged = {frozenset((r["student_a"], r["student_b"])) for r in found}
    copies = {frozenset((a, b)) for a, b, _ in pairs}
    assert len(flagged & copies) >= 0.85 * len(copies), (sorted(map(sorted, flagged)), pairs)
    assert len(flagged - copies) <= 2  # honest pairs on the list, whatever the class's size
    scores = [float(r["score"]) for r in found]
    assert scores == sorted(scores, reverse=True) and all(0.5 <= s <= 1 for s in scores)
    for r in found:
        assert r["items"] and set(r["items"].split(";")) <= ITEMS
        assert r["evidence"].startswith(("share ", "returned "))


def test_the_report_changes_no_grade_and_no_other_output(planted, tmp_path):
    tmp, _ = planted
    with_report, without = tmp / "with", tmp / "without"
    # grades.csv the same, byte for byte, and every other file but the class report's link to this
    # one the same but for numbers: a module with a parameter the contract does not have (the
    # catalogue's Bahdanau with biases) starts it from torch's generator as the sandbox left it, so
    # its errors' sizes, not its verdicts, vary from run to run, with or without the report.
    assert (with_report / "grades.csv").read_bytes() == (without / "grades.csv").read_bytes()
    found = differences(with_report, without)
    assert {f"only in {with_report}: integrity.csv", f"only in {with_report}: integrity.html",
            "differs: report.html"} <= set(found)
    assert [line for line in found if line.startswith("only in")] == [
        f"only in {with_report}: integrity.csv", f"only in {with_report}: integrity.html"]
    link = '<p><a href="integrity.html">Who shared work</a>'
    report = (with_report / "report.html").read_text(encoding="utf-8")
    assert link in report
    (tmp_path / "report.html").write_text("\n".join(line for line in report.split("\n") if not line.startswith(link)),
                                          encoding="utf-8")
    for line in found:
        if line.startswith("differs: "):
            name = line.removeprefix("differs: ")
            if name == RECORD:  # the run's record names the formats it wrote
                continue
            ours = tmp_path / name if name == "report.html" else with_report / name
            assert _numbers_masked(ours) == _numbers_masked(without / name), name


def _numbers_masked(path: Path) -> str:
    return re.sub(r"-?\d+(\.\d+)?(e[-+]\d+)?", "N", comparable(path).decode("utf-8"))


def test_the_page_shows_each_pair_side_by_side(planted, tmp_path):
    tmp, _ = planted
    page = (tmp / "with" / "integrity.html").read_text(encoding="utf-8")
    found = rows(tmp / "with")
    assert page.count('<section class="pair"') == len(found) and "<mark>" in page
    assert "changes no grade" in page and "<script" not in page and "http" not in page.split("</style>")[-1]
    # The copies of an unusual bug lost points on the same checks: the page names them, and how they failed.
    assert re.search(r"Both lost points here; \d+ checks? returned wrong values \([^)]+\)", page)
    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium); CI installs it")
    from test_reporters_html import colour_share, screenshot

    png = tmp_path / "integrity.png"
    screenshot(tmp / "with" / "integrity.html", png, tmp_path / "profile", 8000)
    assert colour_share(png, (255, 255, 255), 0) < 0.97
    assert colour_share(png, (0xFF, 0xE0, 0x8A), 6) > 0.002  # the shared lines, marked


def test_known_sources_are_no_evidence_and_unreadable_notebooks_are_named(tmp_path):
    pairs = build(tmp_path / "class", 12, seed=3)
    copier, source, _ = pairs[0]
    broken = tmp_path / "class" / "zz_broken"
    broken.mkdir()
    (broken / "attention_numpy.ipynb").write_text("{not json", encoding="utf-8")
    known = tmp_path / "known"
    known.mkdir()
    for name in ("attention_numpy.py", "attention_torch.py"):
        shutil.copy(tmp_path / "class" / source / name, known / f"{source}_{name}")
    done = grade(tmp_path / "class", tmp_path / "out", "csv,integrity", "--known-sources", str(known))
    assert done.returncode == 0, done.stderr[-3000:]
    for r in rows(tmp_path / "out"):
        if {r["student_a"], r["student_b"]} == {copier, source}:
            assert "share code" not in r["evidence"]  # what they share is public now
    page = (tmp_path / "out" / "integrity.html").read_text(encoding="utf-8")
    assert f"{source}: " in page and "matches public code: " in page
    assert "zz_broken: attention_numpy.ipynb could not be read" in page
    assert "integrity: not compared: zz_broken" in done.stdout


def test_the_report_takes_the_code_the_results_carry_and_names_a_file_the_worker_could_not_read(tmp_path):
    # No class folder: the run's main process reads no student's file, the workers sent the code.
    bundle = load_bundle(DEFAULT_ASSIGNMENT)
    code = definitions((Cell(1, bundle.reference_source("attention_numpy")),), ITEMS)
    unread = "attention_torch.ipynb could not be read: not a valid notebook (invalid JSON)"
    notebooks = (NotebookResult("attention_numpy", "attention_numpy.ipynb", None, (), "", code=tuple(code.values())),
                 NotebookResult("attention_torch", "attention_torch.ipynb", unread, (), ""))
    report = open_reporter("integrity", tmp_path)
    report.start(bundle, RunInfo(SEED, "a.yaml", "class", "0", 1, "local", Rung("root-namespaces", True), "today"))
    for student in ("ada", "bob"):
        report.add(SubmissionResult(student, 0.0, 1.0, (), notebooks, 0.1))
    report.add(SubmissionResult("cy", 0.0, 1.0, (), (NotebookResult("attention_numpy", "a.ipynb", None, (), ""),), 0.1))
    report.close()
    assert [dict(w.code) for w in report.works] == [code, code, {}] and code
    assert f"integrity: not compared: ada: {unread}" in report.summary_lines()
    assert "integrity: not compared: cy: a.ipynb: its code is too large" in report.summary_lines()


@pytest.mark.parametrize("case", ["missing", "empty", "without-format"])
def test_a_bad_known_sources_folder_is_one_line(tmp_path, case):
    (tmp_path / "class" / "ann").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    folder = {"missing": tmp_path / "nowhere", "empty": tmp_path / "empty", "without-format": tmp_path / "empty"}[case]
    formats = "csv" if case == "without-format" else "csv,integrity"
    done = grade(tmp_path / "class", tmp_path / "out", formats, "--known-sources", str(folder))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--known-sources" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
