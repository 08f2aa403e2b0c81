"""The report's parse is bounded: a cell, and a notebook's cells together, are read up to the size
of a ``.py`` the grader still cuts into cells; what is beyond is named, not parsed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.integrity.cells import within
from grader.integrity.fingerprints import definitions
from grader.records.results import NotebookResult, RunInfo, SubmissionResult
from grader.records.rung import Rung
from grader.reporters import open_reporter
from grader.submissions.load import Cell
from grader.submissions.modulecells import MAX_SPLIT_CHARS

ROOT = Path(__file__).resolve().parents[2]
HONEST = "def softmax(x, axis=-1):\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n    return e / e.sum(axis)\n"


def huge(chars: int) -> str:
    """One function of ``chars`` characters: statements the parser would hold in full."""
    line = "    total = total + values[3] * 2.5 - values[1]\n"
    return "def causal_mask(n):\n    total = 0\n" + line * (chars // len(line)) + "    return total\n"


def test_a_cell_or_a_notebook_beyond_the_limit_is_left_out_and_named():
    big = huge(MAX_SPLIT_CHARS + 10)
    half = "x = 1\n" * (MAX_SPLIT_CHARS // 14)  # 3 of them are more than a notebook's worth
    cells = [Cell(1, HONEST), Cell(2, big), Cell(3, half), Cell(4, half), Cell(5, half)]
    kept, notes = within(cells)
    assert [c.number for c in kept] == [1, 3, 4]
    assert notes[0].startswith("code cell 2 (def causal_mask(n):): not compared: 1.0 MB of code, more than the 1.0 MB")
    assert notes[1].startswith("code cell 5 (x = 1): not compared:") and "of a notebook" in notes[1]
    assert set(definitions(cells, ["softmax", "causal_mask"])) == {"softmax"}
    # A module's cells keep their line numbers with blank lines before them: those count for nothing.
    assert within([Cell(9, "\n" * (2 * MAX_SPLIT_CHARS) + HONEST, "line")]) == ([Cell(9, "\n" * (2 * MAX_SPLIT_CHARS)
                                                                                         + HONEST, "line")], [])


WORKER = """
import resource, sys
from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.worker.score import _code
from grader.submissions.load import Cell, SourceFile
sys.path.insert(0, "tests/integrity")
from test_cells import HONEST, huge

items = load_bundle(DEFAULT_ASSIGNMENT).assignment.items_of("attention_numpy")
source = SourceFile("attention_numpy", "attention_numpy.ipynb", (Cell(1, HONEST), Cell(2, huge(3 * 2**20))))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code, skipped = _code(source, items)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(grown // 1024, [c.name for c in code], skipped)
"""


def test_the_worker_fingerprints_a_huge_cell_in_bounded_memory():
    # 3 MB of one function: the parse alone held some 700 MB of the worker (10 MB: 2.5 GB).
    done = subprocess.run([sys.executable, "-c", WORKER], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    grown, names, skipped = done.stdout.split(" ", 2)
    assert int(grown) < 100, done.stdout  # MB beyond what the process held before
    assert names == "['softmax']" and "code cell 2 (def causal_mask(n):): not compared: 3.0 MB of code" in skipped


def test_the_report_names_what_was_too_large(tmp_path):
    bundle = load_bundle(DEFAULT_ASSIGNMENT)
    code = tuple(definitions([Cell(1, HONEST)], ["softmax"]).values())
    note = "code cell 2 (def causal_mask(n):): not compared: 10.0 MB of code, more than the 1.0 MB the report reads"
    notebook = NotebookResult("attention_numpy", "attention_numpy.ipynb", None, (), "", code=code, code_skipped=(note,))
    result = SubmissionResult("mallory", 0.0, 1.0, (), (notebook,), 0.1)
    assert SubmissionResult.from_json(json.loads(json.dumps(result.to_json()))) == result  # as it crosses from a worker
    report = open_reporter("integrity", tmp_path)
    report.start(bundle, RunInfo(5, "a.yaml", "class", "0", 1, "local", Rung("root-namespaces", True), "today"))
    report.add(result)
    report.add(SubmissionResult("ann", 0.0, 1.0, (), (NotebookResult("attention_numpy", "a.ipynb", None, (), "",
                                                                     code=code),), 0.1))
    report.close()
    assert f"integrity: not compared: mallory: attention_numpy.ipynb: {note}" in report.summary_lines()
    assert "mallory: attention_numpy.ipynb: code cell 2" in (tmp_path / "integrity.html").read_text(encoding="utf-8")
