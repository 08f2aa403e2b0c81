"""The three reporters of a run (grades.csv, results.json, feedback) and the summary's tally."""

import csv
import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, replace
from pathlib import Path

import pytest
from markdown_support import rendered, shown

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.code import ItemCode
from grader.records.results import CheckResult, ItemResult, NotebookResult, Picture, RunInfo, SubmissionResult
from grader.records.rung import Rung
from grader.render.feedback_text import NOT_ATTEMPTED
from grader.reporters import CORE_REPORTERS, REPORTERS, junit_xml, open_reporter
from grader.reporters.feedback_md import feedback
from grader.reporters.gradescope import results as gradescope
from grader.reporters.moodle import feedback_lines
from grader.reporters.prairielearn import results as prairielearn
from grader.run.summary import Tally

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
A = BUNDLE.assignment
CODE = ItemCode("softmax", "def softmax(x):\n    return x", "code cell 1", ((2**64 - 1, 1, 2),),
                frozenset({"causal_mask"}))
RUN = RunInfo(5, "a.yaml", "class", "0", 2, "local", Rung("root-namespaces", True, ("a note",)), "today")


def result(student: str, failing: str | None = None) -> SubmissionResult:
    items = []
    for item in A.items:
        checks = tuple(
            CheckResult(n, p, 0.0 if item.name == failing else p, item.name != failing,
                        "row [3] of softmax(x) sums to 0.61, not 1" if item.name == failing else "")
            for n, p in item.checks
        )
        items.append(ItemResult(item.name, item.notebook, item.points, sum(c.earned for c in checks), checks,
                                "hello ``` world" if item.name == failing else "", 0, None))
    errors = (("code cell 3 (y = x)", "NameError: x"),)
    notebooks = (NotebookResult("attention_numpy", "attention_numpy.ipynb", None, errors, ""),)
    return SubmissionResult(student, sum(i.earned for i in items), A.items_points, tuple(items), notebooks, 0.1)


def test_results_round_trip_through_json():
    r = result("a", "softmax")
    assert SubmissionResult.from_json(json.loads(json.dumps(r.to_json()))) == r
    # Every field, in the dataclasses' order; no pictures, no "examples" (as before they existed), no
    # "behaviour" digest nor "raised" checks where none was recorded (the integrity report's alone), no
    # "closest" where a check passed no comparison (the audit's alone), and no written answers where the
    # bundle has none.
    plain = asdict(r)
    del plain["written"], plain["written_max"]
    for notebook in plain["notebooks"]:
        del notebook["code"]
    for item in plain["items"]:
        del item["examples"], item["behaviour"], item["raised"]
        for check in item["checks"]:
            del check["closest"]
    assert json.dumps(r.to_json()) == json.dumps(plain)
    mask = Picture("causal_mask(2)", "mask", ((1.0, 0.0), (1.0, 1.0)), ((1.0, 1.0), (1.0, None)), ((0, 1),), "")
    drawn = replace(r, items=(replace(r.items[0], examples=(mask,)), *r.items[1:]))
    items = drawn.to_json()["items"]
    pictured = {k: v for k, v in asdict(drawn)["items"][0].items() if k not in ("behaviour", "raised")}
    pictured["checks"] = [{k: v for k, v in c.items() if k != "closest"} for c in pictured["checks"]]
    assert json.dumps(items[0]) == json.dumps(pictured) and "examples" not in items[1]
    assert SubmissionResult.from_json(json.loads(json.dumps(drawn.to_json()))) == drawn
    # A digest, when recorded, crosses from the worker like the rest (results.json drops it).
    digested = replace(r, items=(replace(r.items[0], behaviour="0123abcd", raised=("rows",)), *r.items[1:]))
    assert digested.to_json()["items"][0]["behaviour"] == "0123abcd" and "behaviour" not in items[1]
    assert digested.to_json()["items"][0]["raised"] == ("rows",) and "raised" not in items[1]
    assert SubmissionResult.from_json(json.loads(json.dumps(digested.to_json()))) == digested
    # So does the code of each item, fingerprinted (results.json drops it too).
    coded = replace(r, notebooks=(replace(r.notebooks[0], code=(CODE,)),))
    assert coded.to_json()["notebooks"][0]["code"] == [{"name": "softmax", "source": "def softmax(x):\n    return x",
                                                        "where": "code cell 1", "prints": [[2**64 - 1, 1, 2]],
                                                        "calls": ["causal_mask"]}]
    assert SubmissionResult.from_json(json.loads(json.dumps(coded.to_json()))) == coded
    # So does how close a passed check came to failing.
    near = replace(r, items=(replace(r.items[0], checks=(replace(r.items[0].checks[0], closest=0.25),)), *r.items[1:]))
    assert near.to_json()["items"][0]["checks"][0]["closest"] == 0.25
    assert SubmissionResult.from_json(json.loads(json.dumps(near.to_json()))) == near


def test_reporters_stream_json_sort_csv_and_the_tally_summarises(tmp_path: Path):
    reporters = [open_reporter(name, tmp_path) for name in CORE_REPORTERS]
    tally = Tally(A)
    for reporter in reporters:
        reporter.start(BUNDLE, RUN)
    for r in (result("zoë"), result("Ada Lovelace", "softmax")):
        for reporter in reporters:
            reporter.add(r)
        tally.add(r)
    for reporter in reporters:
        reporter.close()
    summary = tally.summary()
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    assert [row[0] for row in table[1:]] == ["Ada Lovelace", "zoë"]
    # The written answers' columns follow the items', and max_score counts their points too.
    assert table[0] == ["student", "score", "max_score", *(i.name for i in A.items), *(q.id for q in A.written)]
    maximum, but_softmax = A.items_points, A.items_points - A.item("softmax").points
    assert table[1][:4] == ["Ada Lovelace", f"{but_softmax:g}", f"{A.total_points:g}", "0"]
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["run"]["seed"] == 5 and data["run"]["sandbox"]["notes"] == ["a note"]
    assert [s["student"] for s in data["students"]] == ["zoë", "Ada Lovelace"]  # as they came
    assert SubmissionResult.from_json(data["students"][1]) == result("Ada Lovelace", "softmax")
    assert summary.students == 2 and summary.mean == (maximum + but_softmax) / 2
    assert dict(summary.pass_rates)["softmax"] == 0.5 and dict(summary.pass_rates)["causal_mask"] == 1.0
    assert f"2 students graded; class mean {(maximum + but_softmax) / 2:.1f} / {A.total_points:g}" in summary.lines()[0]
    assert (tmp_path / "feedback" / "zoë.md").exists()
    assert data["feedback"] == {"Ada Lovelace": "feedback/Ada Lovelace.md", "zoë": "feedback/zoë.md"}


def test_results_json_is_the_same_file_with_or_without_what_the_integrity_report_is_sent(tmp_path: Path):
    written = []
    for name, r in (("plain", result("ada", "softmax")), ("sent", result("ada", "softmax"))):
        if name == "sent":
            r = replace(r, notebooks=(replace(r.notebooks[0], code=(CODE,)),),
                        items=(replace(r.items[0], behaviour="0123abcd", raised=("rows",)), *r.items[1:]))
        reporter = open_reporter("json", tmp_path / name)
        reporter.start(BUNDLE, RUN)
        reporter.add(r)
        reporter.close()
        written.append((tmp_path / name / "results.json").read_bytes())
    assert written[0] == written[1] and b"prints" not in written[1]


def test_one_student_is_one_student_in_the_summary_and_the_class_report(tmp_path: Path):
    tally = Tally(A)
    tally.add(result("ada"))
    assert tally.summary().lines()[0].startswith("1 student graded; class mean")
    report = open_reporter("report", tmp_path)
    report.start(BUNDLE, RUN)
    report.add(result("ada"))
    report.close()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<p>1 student graded;" in page and "<title>1 student</title>" in page and "1 students" not in page


def test_an_unusable_notebook_is_explained_once_not_once_per_check():
    why = "attention_torch.ipynb could not be read: not a valid notebook (invalid JSON: x at line 1)"
    base = result("Ada")
    items = tuple(i if i.notebook != "attention_torch" else
                  ItemResult(i.name, i.notebook, i.points, 0.0,
                             tuple(CheckResult(c.name, c.points, 0.0, False, why) for c in i.checks), "", 0, why)
                  for i in base.items)
    notebooks = (*base.notebooks, NotebookResult("attention_torch", "attention_torch.ipynb", why, (), ""))
    text = feedback(SubmissionResult("Ada", 0, A.items_points, items, notebooks, 0.1))
    assert shown(text).count(why) == 1


def test_the_summary_lists_file_problems_and_skipped_entries():
    tally = Tally(A)
    base = result("Ada")
    missing = NotebookResult("attention_torch", None, "attention_torch.ipynb was not submitted", (), "")
    renamed = NotebookResult("attention_numpy", "attention_numpy (1).ipynb", None, (), "",
                             "graded attention_numpy (1).ipynb: its name is not attention_numpy.ipynb")
    tally.add(SubmissionResult("Ada", 0, A.items_points, base.items, (renamed, missing), 0.1))
    lines = replace(tally.summary(), skipped=(".git (its name begins with '.')",)).lines()
    assert "  Ada: attention_torch missing (attention_torch.ipynb was not submitted)" in lines
    assert "  Ada: attention_numpy: graded attention_numpy (1).ipynb: its name is not attention_numpy.ipynb" in lines
    assert lines[-1] == "  .git (its name begins with '.')"


def test_feedback_names_failed_properties_cells_and_output():
    text = feedback(result("Ada", "softmax"))
    assert f"**Score: {A.items_points - A.item('softmax').points:g} / {A.items_points:g}**" in text
    assert "`rows_sum_to_one` (1 pt) **failed**: row [3] of softmax(x) sums to 0.61, not 1" in shown(text)
    assert "`attention_numpy`, code cell 3 (y = x) raised `NameError: x`" in text
    assert "````text\nhello ``` world\n````" in text  # a student's fence cannot break out of the code block
    assert "## `causal_mask`" not in text  # nothing to say about a full-marks item


FORGED = "bad\n# Score: 155 / 155\n[full marks](http://evil.example) <img src=x onerror=alert(1)> **A+**"


def test_student_text_in_the_feedback_forges_no_heading_link_or_html():
    base = result("# Score: 155 / 155 <b>", "softmax")
    items = tuple(replace(i, checks=tuple(replace(c, message=FORGED) for c in i.checks), output=FORGED)
                  if i.name == "softmax" else i for i in base.items)
    notebooks = (NotebookResult("attention_numpy", "[x](http://e).ipynb", None, ((FORGED, f"ValueError: {FORGED}"),),
                                "", note=FORGED),)
    text = feedback(replace(base, items=items, notebooks=notebooks))
    page = rendered(text)
    assert page.tags.count("h1") == 1 and page.tags.count("h2") == 1  # the student's, and the item that lost points
    assert not set(page.tags) - {"h1", "h2", "p", "strong", "code", "pre", "ul", "li", "blockquote", "table", "thead",
                                 "tbody", "tr", "th", "td"}
    assert page.tags.count("strong") == 1 + 7  # the score, each failed check
    assert "# Score: 155 / 155 <b>" in "".join(page.text)  # shown as written
    # Each check's message, the output, the note, the cell and its error's last line.
    assert shown(text).count("[full marks](http://evil.example)") == 7 + 1 + 1 + 1 + 1


def test_grades_csv_writes_an_id_a_spreadsheet_would_run_as_text_and_the_points_as_numbers(tmp_path: Path):
    reporter = open_reporter("csv", tmp_path)
    reporter.start(BUNDLE, RUN)
    reporter.add(result("=1+1", "softmax"))
    reporter.close()
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as handle:
        row = list(csv.reader(handle))[1]
    assert row[:4] == ["'=1+1", f"{A.items_points - A.item('softmax').points:g}", f"{A.total_points:g}", "0"]


def test_a_stub_reads_not_attempted_in_every_format():
    base = result("Ada", "softmax")
    stub = "softmax(<array float64 shape (1,)>) raised NotImplementedError"
    items = tuple(replace(i, checks=tuple(replace(c, message=stub) for c in i.checks)) if i.name == "softmax" else i
                  for i in base.items)
    ada = replace(base, items=items)
    junit = ET.tostring(junit_xml.testsuite("attention", ada), encoding="unicode")
    outputs = {"markdown": feedback(ada), "moodle": "\n".join(feedback_lines(ada)),
               "gradescope": json.dumps(gradescope(ada)), "prairielearn": json.dumps(prairielearn(ada)), "junit": junit}
    for name, text in outputs.items():
        assert NOT_ATTEMPTED[1:] in text, name  # "Not attempted" where it begins a sentence
        assert "float64 shape" not in text, name  # the stub's own message
    assert "softmax: 0 / 10: not attempted" in outputs["moodle"]


def test_reporters_are_chosen_by_name(tmp_path: Path):
    assert set(CORE_REPORTERS) <= set(REPORTERS)
    with pytest.raises(ValueError, match="unknown reporter 'nope'"):
        open_reporter("nope", tmp_path)
    only = open_reporter("csv", tmp_path)
    only.start(BUNDLE, RUN)
    only.add(result("a"))
    only.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv"]


def test_run_info_keeps_the_results_json_layout():
    assert list(RUN.to_json()) == ["seed", "assignment", "class", "grader_version", "jobs", "scheduler",
                                   "sandbox", "started"]
