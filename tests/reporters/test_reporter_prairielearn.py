"""``--format prairielearn``: one results file per student in PrairieLearn's external-grader
format, validated against that format as PrairieLearn documents it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from test_reporters import BUNDLE, RUN, result

from grader.records.results import NotebookResult, zero_submission
from grader.render.filenames import safe_name
from grader.reporters import open_reporter

# https://prairielearn.readthedocs.io/en/latest/externalGrading/#grading-results: what a
# grader writes to /grade/results/results.json. Only `gradable` is required; `score` is a
# fraction; each test has a name and, when it carries points, `points` and `max_points`.
TEST = {
    "type": "object",
    "required": ["name", "points", "max_points"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"}, "description": {"type": "string"},
        "points": {"type": "number", "minimum": 0}, "max_points": {"type": "number", "minimum": 0},
        "message": {"type": "string"}, "output": {"type": "string"},
        "images": {"type": "array"},
    },
}
PRAIRIELEARN = {
    "type": "object",
    "required": ["gradable"],
    "additionalProperties": False,
    "properties": {
        "gradable": {"type": "boolean"}, "score": {"type": "number", "minimum": 0, "maximum": 1},
        "format_errors": {"type": "array"}, "message": {"type": "string"}, "output": {"type": "string"},
        "images": {"type": "array"}, "tests": {"type": "array", "items": TEST},
    },
}


def write(tmp_path: Path, *results) -> dict[str, dict]:
    reporter = open_reporter("prairielearn", tmp_path)
    reporter.start(BUNDLE, RUN)
    for r in results:
        reporter.add(r)
    reporter.close()
    files = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (tmp_path / "prairielearn").iterdir()}
    for data in files.values():
        jsonschema.validate(data, PRAIRIELEARN)
    return files


def test_one_file_per_student_score_as_a_fraction_one_test_per_check(tmp_path: Path):
    odd = "a/b: ../c"
    files = write(tmp_path, result("zoë"), result(odd, "softmax"))
    assert set(files) == {"zoë", safe_name(odd)}
    data = files[safe_name(odd)]
    earned = BUNDLE.assignment.items_points - BUNDLE.assignment.item("softmax").points
    assert data["gradable"] is True and data["score"] == pytest.approx(earned / BUNDLE.assignment.items_points)
    tests = {t["name"]: t for t in data["tests"]}
    assert len(tests) == sum(len(item.checks) for item in BUNDLE.assignment.items)
    failed = tests["softmax: rows_sum_to_one"]
    assert (failed["points"], failed["max_points"]) == (0, 1)
    assert failed["output"] == "row [3] of softmax(x) sums to 0.61, not 1"
    assert tests["causal_mask: blocks_future"] == {**tests["causal_mask: blocks_future"], "points": 2,
                                                   "max_points": 2, "output": "passed"}
    assert sum(t["points"] for t in data["tests"]) == earned
    assert "code cell 3 (y = x) raised NameError: x" in data["output"]  # said once, not per check
    assert files["zoë"]["score"] == 1.0


def test_a_submission_nothing_of_which_loads_is_not_gradable(tmp_path: Path):
    base = result("a")
    unusable = replace(base, notebooks=tuple(
        NotebookResult(nb, None, f"{nb}.ipynb was not submitted", (), "") for nb in BUNDLE.assignment.notebooks))
    crashed = zero_submission("b", BUNDLE.assignment, "the grader itself failed (OSError); ask your instructor")
    files = write(tmp_path, unusable, crashed)
    assert files["a"]["gradable"] is False and "attention_torch.ipynb was not submitted" in files["a"]["output"]
    assert files["b"]["gradable"] is False and files["b"]["score"] == 0
