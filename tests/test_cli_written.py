"""End to end: written answers graded by a person beside the checks, through the real CLI.

A class of notebooks and .py files is graded; written.csv is filled in and given back with
``--written``; every output then carries the same totals; a changed answer is flagged again;
a faulty or stale marks file is a one-line error and the output folder is left as it was.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_support import rendered

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"
SOURCE = ROOT / "assignments" / "attention" / "attention_numpy.ipynb"  # its answer cells answered
HOSTILE = '=HYPERLINK("http://evil")\n<script>alert(1)</script> **bold** | [x](http://e) `'
FORMATS = "csv,json,markdown,html,report,junit,gradescope,prairielearn,moodle,canvas"
NO_ANSWER = "unanswered: no answer, 0 points"  # written.csv's status of an answer not there


def module_answers(quadratic: str, luong: str) -> str:
    cell = "\n\n# %% [markdown]\n# answer: {}\n" + "{}\n"
    return "".join(cell.format(question, "\n".join(f"# {line}" for line in text.split("\n")))
                   for question, text in (("quadratic_cost", quadratic), ("luong_compare", luong)))


def write_class(class_dir: Path) -> None:
    """Six students, as the sample class: notebooks, .py files with and without answers, a hostile one."""
    numpy_py = (REFERENCE / "attention_numpy.py").read_text()
    students = {"ada": None, "ben": module_answers("n queries by n keys", "dot; concat"),
                "cy": "", "dee": module_answers(HOSTILE, "YOUR ANSWER HERE"),
                "eve": module_answers("quadratic", "dot is fastest"), "fay": None}
    for name, answers in students.items():
        folder = class_dir / name
        folder.mkdir(parents=True)
        if answers is None:
            shutil.copyfile(SOURCE, folder / "attention_numpy.ipynb")
        else:
            (folder / "attention_numpy.py").write_text(numpy_py + answers)
        shutil.copyfile(REFERENCE / "attention_torch.py", folder / "attention_torch.py")


def grade(class_dir: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "grade", str(class_dir), "--out", str(out), "--seed", "1",
                           "--jobs", "1", "--no-progress", "--format", FORMATS, "--canvas-gradebook",
                           str(class_dir.parent / "gradebook.csv"), "--canvas-column", "Attention", *extra],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


def table(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def totals(out: Path) -> dict[str, set[float]]:
    """Each student's total as every output says it: they must agree."""
    found: dict[str, set[float]] = {}

    def add(student: str, value: float) -> None:
        found.setdefault(student, set()).add(round(value, 6))

    for row in table(out / "grades.csv"):
        add(row["student"], float(row["score"]))
    for student in json.loads((out / "results.json").read_text(encoding="utf-8"))["students"]:
        add(student["student"], student["score"])
    for path in (out / "feedback").glob("*.md"):
        add(path.stem, float(re.search(r"\*\*Score: ([\d.]+) / 159\*\*", path.read_text()).group(1)))
    for path in (out / "feedback").glob("*.html"):
        add(path.stem, float(re.search(r"Score: ([\d.]+) / 159<", path.read_text()).group(1)))
    for suite in ET.parse(out / "junit.xml").getroot():
        add(suite.get("name"), float(suite.find("properties/property[@name='score']").get("value")))
    written = ("quadratic_cost (written)", "luong_compare (written)")
    for row in table(out / "moodle.csv"):  # the checks' points, and each written answer's column
        add(row["Identifier"], float(row["Grade"]) + sum(float(row.get(c) or 0) for c in written))
    for row in table(out / "canvas.csv"):
        if row["ID"].isdigit():
            add(row["SIS Login ID"], float(row["Attention"]) + sum(float(row.get(c) or 0) for c in written))
    for path in (out / "gradescope").glob("*.json"):  # Gradescope grades the written answers itself
        data = json.loads(path.read_text())
        add(path.stem, data["score"] + sum(float(r["points"] or 0) for r in table(out / "written.csv")
                                           if r["student"] == path.stem and r["status"] == "graded"))
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    base = tmp_path_factory.mktemp("written")
    class_dir, out = base / "class", base / "out"
    write_class(class_dir)
    (base / "gradebook.csv").write_text("Student,ID,SIS Login ID,Attention\n" + "".join(
        f"{name.title()},{100 + n},{name},\n" for n, name in enumerate(("ada", "ben", "cy", "dee", "eve", "fay"))))
    return class_dir, out, grade(class_dir, out)


def test_a_first_run_lists_every_answer_for_a_person_and_counts_none(graded):
    class_dir, out, run = graded
    assert run.returncode == 0, run.stderr
    # No answer (no cell, or left as released) is 0 points and nothing to grade, as nbgrader gives it.
    assert ("12 written answers: 9 await a grader (18 points), 3 with no answer (0 points): grade them on the pages "
            in run.stdout)
    rows = table(out / "written.csv")
    assert len(rows) == 12 and all(r["points"] == "" for r in rows)
    status = {(r["student"], r["question"]): r["status"] for r in rows}
    assert status["cy", "quadratic_cost"] == NO_ANSWER and status["ben", "quadratic_cost"] == "awaiting"
    assert status["dee", "luong_compare"] == NO_ANSWER  # left as released
    grades = {r["student"]: r for r in table(out / "grades.csv")}
    assert all(r["max_score"] == "159" for r in grades.values())
    # Empty until a person has graded it (the contract), no answer included: written.csv tells them apart.
    assert all((r["quadratic_cost"], r["luong_compare"]) == ("", "") for r in grades.values())
    assert {s: v for s, v in totals(out).items() if len(v) > 1} == {}
    page = (out / "written" / "quadratic_cost.html").read_text()
    assert all(name in page for name in ("ada", "ben", "cy", "dee", "eve", "fay")) and "<script>" not in page
    assert "awaits a grader" in (out / "feedback" / "ben.md").read_text()


def test_marks_given_back_reach_every_output_and_a_changed_answer_is_flagged(graded, tmp_path: Path):
    class_dir, out, first = graded
    assert first.returncode == 0, first.stderr
    rows = table(out / "written.csv")
    for row in rows:
        if row["status"] == "awaiting" or row["student"] == "cy":
            row["points"], row["rubric"] = ("2", "time;memory") if row["question"] == "quadratic_cost" else ("1", "")
            row["comment"] = HOSTILE if row["student"] == "dee" else "good"
    marks = tmp_path / "marks.csv"
    with open(marks, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    run = grade(class_dir, out, "--written", str(marks))
    assert run.returncode == 0, run.stderr
    # The one left as released is no answer, not an answer to grade.
    assert "12 written answers: 11 graded, 1 with no answer (0 points)\n" in run.stdout
    assert {s: v for s, v in totals(out).items() if len(v) > 1} == {}
    assert totals(out)["ben"] == {158.0} and totals(out)["cy"] == {158.0}  # 155 + 2 + 1, even with no answer
    assert table(out / "grades.csv")[1]["quadratic_cost"] == "2"
    # The hostile comment shows as text everywhere.
    feedback = (out / "feedback" / "dee.md").read_text()
    assert "script" not in rendered(feedback).tags and HOSTILE.split("\n")[1] in "".join(rendered(feedback).text)
    assert "<script>" not in (out / "feedback" / "dee.html").read_text()
    assert "'=HYPERLINK" in (out / "written.csv").read_text()

    # Ben changes his answer: his mark, carried from written.csv, no longer counts.
    module = class_dir / "ben" / "attention_numpy.py"
    module.write_text(module.read_text().replace("n queries by n keys", "n queries by n keys, in memory too"))
    stale = grade(class_dir, out)
    assert stale.returncode == 0, stale.stderr
    assert ("12 written answers: 10 graded, 1 awaits a grader (2 points; 1 of them changed since graded), 1 with no "
            "answer (0 points): grade them on the pages") in stale.stdout
    ben = {r["question"]: r for r in table(out / "written.csv") if r["student"] == "ben"}
    assert ben["quadratic_cost"]["points"] == "" and ben["quadratic_cost"]["status"].startswith("changed: 2 points")
    assert ben["luong_compare"]["points"] == "1"
    assert totals(out)["ben"] == {156.0} and {s: v for s, v in totals(out).items() if len(v) > 1} == {}

    # The marks file given again is stale for Ben: an error naming the row; nothing is written.
    before = snapshot(out)
    again = grade(class_dir, out, "--written", str(marks))
    assert again.returncode == 2 and snapshot(out) == before
    line = [line for line in again.stderr.splitlines() if line.startswith("error:")]
    assert len(line) == 1 and re.search(rf"{marks}: row \d+: the answer of 'ben' to 'quadratic_cost' has changed",
                                        line[0])


def test_a_faulty_marks_file_is_one_line_before_anything_runs(graded, tmp_path: Path):
    class_dir, out, first = graded
    assert first.returncode == 0, first.stderr
    marks = tmp_path / "marks.csv"
    marks.write_text("student,question,points,rubric,comment,digest\nada,quadratic_cost,3,,,abc\n")
    before = snapshot(out)
    run = grade(class_dir, out, "--written", str(marks))
    assert run.returncode == 2 and snapshot(out) == before
    assert run.stderr.strip() == f"error: {marks}: row 2: points 3 is over the question's 2"


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A class of three, graded through the real CLI: ada hands in the source (both answers
    written), ben the source with one answer left as released, cy the release unchanged."""
    base = tmp_path_factory.mktemp("three")
    release = base / "release"
    made = subprocess.run([sys.executable, "-m", "grader", "release", "--out", str(release)], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)
    assert made.returncode == 0, made.stderr
    source = SOURCE.parent
    notebook = json.loads(SOURCE.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "luong_compare":
            cell["source"] = "YOUR ANSWER HERE"
    class_dir = base / "class"
    for student, numpy, torch in (("ada", SOURCE, source / "attention_torch.ipynb"), ("ben", None,
                                  source / "attention_torch.ipynb"),
                                  ("cy", release / "attention_numpy.ipynb", release / "attention_torch.ipynb")):
        (class_dir / student).mkdir(parents=True)
        if numpy is None:
            (class_dir / student / "attention_numpy.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
        else:
            shutil.copyfile(numpy, class_dir / student / "attention_numpy.ipynb")
        shutil.copyfile(torch, class_dir / student / "attention_torch.ipynb")
    # The instructor made the Canvas column worth every point, the written answers' too.
    (base / "gradebook.csv").write_text("Student,ID,SIS Login ID,Attention\nPoints Possible,,,159\n" + "".join(
        f"{name.title()},{100 + n},{name},\n" for n, name in enumerate(("ada", "ben", "cy"))))
    out = base / "out"
    return out, grade(class_dir, out)


def test_an_answer_left_as_released_is_no_answer_and_counted_once_everywhere(three):
    out, run = three
    assert run.returncode == 0, run.stderr
    # One count in every output: ada's two answers and ben's first await a grader; ben's second (left as
    # released) and cy's two (the release unchanged) are no answer, 0 points, nothing to grade.
    line = ("6 written answers: 3 await a grader (6 points), 3 with no answer (0 points): grade them on the pages "
            "written/<id>.html (export, then grade again with --written FILE) or in written.csv (then grade again)")
    assert line in run.stdout.splitlines() and "fill in written.csv" not in run.stdout
    report = (out / "report.html").read_text(encoding="utf-8")
    cell = r'<td class="num">\d+</td>'
    table_rows = re.findall(rf'<tr><td><code>(\w+)</code></td><td class="num">2</td>((?:{cell}){{4}})', report)
    counts = {question: [int(n) for n in re.findall(r">(\d+)<", cells)] for question, cells in table_rows}
    assert counts == {"quadratic_cost": [0, 2, 0, 1], "luong_compare": [0, 1, 0, 2]}  # graded, awaiting, changed, none
    assert "6 written answers: 3 await a grader (6 points), 3 with no answer (0 points)" in report
    for question, counter in (("quadratic_cost", "0 of 2 graded; 1 with no answer (0 points)"),
                              ("luong_compare", "0 of 1 graded; 2 with no answer (0 points)")):
        page = (out / "written" / f"{question}.html").read_text(encoding="utf-8")
        assert f'<span id="counter" aria-live="polite">{counter}</span>' in page
        assert "no cell" not in page and "0 points, nothing to grade" in page
    status = {(r["student"], r["question"]): (r["points"], r["status"]) for r in table(out / "written.csv")}
    assert status["ben", "luong_compare"] == status["cy", "quadratic_cost"] == ("", NO_ANSWER)
    assert status["ben", "quadratic_cost"] == ("", "awaiting")
    grades = {r["student"]: (r["quadratic_cost"], r["luong_compare"]) for r in table(out / "grades.csv")}
    # The contract: a question's column is empty until a person has graded it, no answer included.
    assert grades == {"ada": ("", ""), "ben": ("", ""), "cy": ("", "")}
    written = {s["student"]: {w["question"]: (w["status"], w["earned"]) for w in s["written"]}
               for s in json.loads((out / "results.json").read_text(encoding="utf-8"))["students"]}
    assert written["ben"] == {"quadratic_cost": ("awaiting", None), "luong_compare": ("unanswered", 0)}
    feedback = (out / "feedback" / "ben.md").read_text(encoding="utf-8")
    assert "| `luong_compare` | 0 / 2 (no answer) |" in feedback and feedback.count("awaits a grader") == 1
    suites = {suite.get("name"): suite for suite in ET.parse(out / "junit.xml").getroot()}
    assert [suites[s].get("skipped") for s in ("ada", "ben", "cy")] == ["2", "1", "0"]  # only those awaiting
    assert {s: v for s, v in totals(out).items() if len(v) > 1} == {}


def test_every_score_says_what_its_maximum_counts(three):
    out, run = three
    assert run.returncode == 0, run.stderr
    # canvas.csv's column holds the checks' points, out of 155; grades.csv's max_score is 159.
    assert "the scores are out of 155, not rescaled (the checks' points; the written answers' 4 are in columns of " \
           "their own: 159 in all, grades.csv's max_score)" in run.stdout and "(as in grades.csv)" not in run.stdout
    assert {r["max_score"] for r in table(out / "grades.csv")} == {"159"}
    assert "**Score: 155 / 159**" in (out / "feedback" / "ada.md").read_text(encoding="utf-8")
    # What a student reads in Moodle, Gradescope and PrairieLearn beside a maximum of 155 says it is the checks'.
    moodle = {r["Identifier"]: r for r in table(out / "moodle.csv")}
    assert moodle["ada"]["Maximum Grade"] == "155"
    assert moodle["ada"]["Feedback comments"].split("<br>")[0] == (
        "Score: 155 / 155 for the checks; 155 / 159 with the written answers; 2 answers await a grader")
    assert moodle["cy"]["Feedback comments"].split("<br>")[0] == (
        "Score: 0 / 155 for the checks; 0 / 159 with the written answers")
    gradescope = json.loads((out / "gradescope" / "ada.json").read_text(encoding="utf-8"))["output"].splitlines()
    assert gradescope[0] == "Score: 155 / 155 for the checks"
    assert gradescope[1].endswith("are graded by hand in Gradescope, beside this score: 159 points in all.")
    prairielearn = json.loads((out / "prairielearn" / "ada.json").read_text(encoding="utf-8"))
    assert prairielearn["message"] == "Score: 155 / 155 for the checks"
