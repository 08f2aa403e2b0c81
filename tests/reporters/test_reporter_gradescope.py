"""``--format gradescope``: one results.json per student in Gradescope's autograder format,
validated against that format as Gradescope documents it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from gradescope_support import GRADESCOPE
from test_reporters import BUNDLE, RUN, result

from grader.render.filenames import safe_name
from grader.reporters import open_reporter


def validate(data: dict) -> dict:
    jsonschema.validate(data, GRADESCOPE)
    return data


def test_one_test_per_check_with_the_property_message_and_a_hidden_log(tmp_path: Path):
    reporter = open_reporter("gradescope", tmp_path)
    reporter.start(BUNDLE, RUN)
    odd = 'CON<"x">'
    for r in (result("zoë"), result(odd, "softmax")):
        reporter.add(r)
    reporter.close()
    files = {p.stem: validate(json.loads(p.read_text(encoding="utf-8"))) for p in (tmp_path / "gradescope").iterdir()}
    assert set(files) == {"zoë", safe_name(odd)}
    data = files[safe_name(odd)]
    assert data["score"] == BUNDLE.assignment.items_points - BUNDLE.assignment.item("softmax").points
    assert data["stdout_visibility"] == "hidden"
    assert data["output_format"] == data["test_output_format"] == data["test_name_format"] == "text"
    tests = {t["name"]: t for t in data["tests"]}
    assert len(tests) == sum(len(item.checks) for item in BUNDLE.assignment.items)
    failed = tests["softmax: rows_sum_to_one"]
    assert failed == {"name": "softmax: rows_sum_to_one", "score": 0, "max_score": 1, "status": "failed",
                      "output": "row [3] of softmax(x) sums to 0.61, not 1", "visibility": "visible"}
    assert tests["causal_mask: blocks_future"]["status"] == "passed"
    assert sum(t["score"] for t in data["tests"]) == data["score"]
    assert "hello" not in json.dumps(data)  # what the student's code printed is not shown back
