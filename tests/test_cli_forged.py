"""End to end: what a student writes forges nothing in the outputs.

The real CLI on a Moodle download: one student's code raises and prints text with lines, a
"# Score: 155 / 155" heading, a Markdown link and HTML, and their Moodle name is a spreadsheet
formula. Their feedback renders no heading, link or HTML of theirs, and every CSV of the run,
and of the regrade after it, writes the formula as text.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from markdown_support import rendered, shown

pytest.importorskip("torch")

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
FORGED = "bad\n# Score: 155 / 155\n[full marks](http://evil.example) <img src=x onerror=alert(1)> **A+**"
NAME = '=HYPERLINK("evil.example","full marks")'  # a Moodle download's folder names hold no "/"
FORMULA = f"{NAME}_41"  # the student's id: Moodle's name and participant id
NUMPY = (REFERENCE / "attention_numpy.py").read_text(encoding="utf-8")
FORGER = NUMPY + (f"\n\ndef softmax(x, axis=-1):\n    print({FORGED!r})\n    raise ValueError({FORGED!r})\n\n"
                  "raise RuntimeError('# Score: 155 / 155 [x](http://evil.example) <b>bold</b>')\n")
QUOTED = FORMULA.replace('"', '""')
GRADEBOOK = f'Student,ID,SIS User ID,SIS Login ID,Section,Attention (4242)\n"{QUOTED}",1001,,,A,\n'
FORMATS = "csv,json,markdown,moodle,canvas"
# The HTML a rendering of our own Markdown makes: headings, the score, the table, lists, quotes, code.
OURS = {"h1", "h2", "p", "strong", "code", "pre", "ul", "li", "blockquote", "table", "thead", "tbody", "tr", "th", "td"}


def download(path: Path, students: dict[str, str]) -> Path:
    """A Moodle download: each student's (Moodle name_participant id) attention_numpy.py and
    the reference's attention_torch.py."""
    torch = (REFERENCE / "attention_torch.py").read_bytes()
    with zipfile.ZipFile(path, "w") as archive:
        for student, numpy in students.items():
            archive.writestr(f"{student}_assignsubmission_file_/attention_numpy.py", numpy)
            archive.writestr(f"{student}_assignsubmission_file_/attention_torch.py", torch)
    return path


def grade(class_zip: Path, out: Path, gradebook: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(class_zip), "--out", str(out), "--format",
                           FORMATS, "--canvas-gradebook", str(gradebook), "--canvas-column", "Attention", "--seed", "5",
                           "--jobs", "2", "--no-progress"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The forger and Ada graded; then a copy of that output regraded with Ada alone (its
    changes.csv lists the forger)."""
    tmp = tmp_path_factory.mktemp("forged")
    gradebook = tmp / "gradebook.csv"
    gradebook.write_text(GRADEBOOK, encoding="utf-8")
    first, regrade = tmp / "first", tmp / "regrade"
    grade(download(tmp / "class.zip", {FORMULA: FORGER, "Ada Lovelace_42": NUMPY}), first, gradebook)
    shutil.copytree(first, regrade)
    grade(download(tmp / "again.zip", {"Ada Lovelace_42": NUMPY}), regrade, gradebook)
    return first, regrade


def cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def test_the_feedback_renders_no_heading_link_or_html_of_the_students(runs):
    first = runs[0]
    results = json.loads((first / "results.json").read_text(encoding="utf-8"))
    [forger] = [s for s in results["students"] if s["student"] == FORMULA]
    softmax = next(i for i in forger["items"] if i["name"] == "softmax")
    assert "\n# Score: 155 / 155\n[full marks]" in softmax["checks"][0]["message"]  # the student's lines came back
    assert "\n# Score: 155 / 155\n[full marks]" in softmax["output"]
    markdown = (first / results["feedback"][FORMULA]).read_text(encoding="utf-8")
    page = rendered(markdown)
    assert set(page.tags) <= OURS, set(page.tags) - OURS
    headings = [line for line in markdown.splitlines() if line.startswith("## ")]
    assert headings and all(re.fullmatch(r"## `\w+`: [\d.]+ / [\d.]+", line) for line in headings)
    assert page.tags.count("h1") == 1 and page.tags.count("h2") == len(headings)
    assert "# Score: 155 / 155" in "".join(page.text)  # shown as the student wrote it
    assert "[full marks](http://evil.example) <img src=x onerror=alert(1)> **A+**" in shown(markdown)


def test_every_csv_writes_the_formula_as_text(runs):
    first, regrade = runs
    found = {f"{out.name}/{name}": cells(out / name) for out in runs for name in ("grades.csv", "moodle.csv",
                                                                                  "canvas.csv")}
    found["regrade/changes.csv"] = cells(regrade / "changes.csv")
    for name, values in found.items():
        assert not [v for v in values if re.match(r"\s*[=+@]|\s*-(?![\d.]+$)|[\t\r]", v)], name
    assert f"'{FORMULA}" in found["first/grades.csv"] and f"'{FORMULA}" in found["regrade/changes.csv"]
    assert f"'{NAME}" in found["first/moodle.csv"] and "Participant 41" in found["first/moodle.csv"]
    assert f"'{FORMULA}" in found["first/canvas.csv"] and f"'{FORMULA}" in found["regrade/canvas.csv"]


def test_moodles_comment_holds_the_students_html_as_text_and_its_line_breaks(runs):
    with open(runs[0] / "moodle.csv", newline="", encoding="utf-8") as handle:
        comments = {row["Identifier"]: row["Feedback comments"] for row in csv.DictReader(handle)}
    forged, honest = comments["Participant 41"], comments["Participant 42"]
    assert not re.findall(r"<(?!br>)", forged + honest)  # Moodle stores the column as HTML: ours is <br> alone
    assert "bad<br># Score: 155 / 155<br>[full marks](http&#58;//evil.example) &lt;img src=x onerror=alert(1)&gt;" \
        in forged
    assert re.fullmatch(r"Score: [\d.]+ / [\d.]+[^<]*(<br>[^<]+)*", honest)
