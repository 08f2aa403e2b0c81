"""``--format junit``: junit.xml valid against the JUnit schema and read by a real consumer
(junitparser), whatever the student ids, messages and printed output hold."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from test_reporters import BUNDLE, RUN, result

from grader.records.results import CheckResult
from grader.reporters import open_reporter

junitparser = pytest.importorskip("junitparser")
xmlschema = pytest.importorskip("xmlschema")

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "junit.xsd"
HOSTILE = "Ada\x01 <b>&amp;</b> ]]> \ud800"  # a control character, markup, a CDATA end, a lone surrogate


def write(tmp_path: Path, *results) -> Path:
    reporter = open_reporter("junit", tmp_path)
    reporter.start(BUNDLE, RUN)
    for r in results:
        reporter.add(r)
    reporter.close()
    return tmp_path / "junit.xml"


def hostile_result():
    base = result(HOSTILE, "softmax")
    first = base.items[0]
    checks = (replace(first.checks[0], passed=False, earned=0.0, message=f"broke: {HOSTILE}"), *first.checks[1:])
    item = replace(first, checks=checks, earned=first.earned - first.checks[0].points, output=f"printed {HOSTILE}")
    return replace(base, items=(item, *base.items[1:]))


def test_one_suite_per_student_one_case_per_check_failures_with_the_message(tmp_path: Path):
    path = write(tmp_path, result("zoë"), result("Ada Lovelace", "softmax"))
    xmlschema.XMLSchema(SCHEMA).validate(str(path))
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = {suite.name: suite for suite in xml}
    checks = sum(len(item.checks) for item in BUNDLE.assignment.items)
    assert set(suites) == {"zoë", "Ada Lovelace"}
    assert [suite.tests for suite in suites.values()] == [checks, checks]
    assert suites["zoë"].failures == 0 and suites["Ada Lovelace"].failures == 7  # softmax's seven checks
    assert xml.tests == 2 * checks and xml.failures == 7
    failed = {(case.classname, case.name): case for case in suites["Ada Lovelace"] if not case.is_passed}
    assert set(failed) == {("attention.softmax", name) for name, _ in BUNDLE.assignment.item("softmax").checks}
    failure = failed[("attention.softmax", "rows_sum_to_one")].result[0]
    assert isinstance(failure, junitparser.Failure)
    assert failure.message == "row [3] of softmax(x) sums to 0.61, not 1"
    props = {p.name: p.value for p in suites["Ada Lovelace"].properties()}
    maximum = BUNDLE.assignment.items_points
    assert props == {"score": f"{maximum - BUNDLE.assignment.item('softmax').points:g}", "max_score": f"{maximum:g}"}
    assert not list(tmp_path.glob(".junit*"))  # the side file is gone


def test_anything_a_student_id_or_message_holds_stays_valid_xml(tmp_path: Path):
    path = write(tmp_path, hostile_result())
    xmlschema.XMLSchema(SCHEMA).validate(str(path))
    suite = next(iter(junitparser.JUnitXml.fromfile(str(path))))
    assert suite.name == "Ada\ufffd <b>&amp;</b> ]]> \ufffd"
    failure = next(case for case in suite if not case.is_passed).result[0]
    assert failure.message.startswith("broke: Ada\ufffd <b>&amp;</b>")
    printed = ET.parse(path).getroot().find("testsuite/system-out")
    assert printed is not None and "printed Ada\ufffd" in (printed.text or "")


def test_an_empty_class_is_a_valid_file(tmp_path: Path):
    path = write(tmp_path)
    xmlschema.XMLSchema(SCHEMA).validate(str(path))
    assert junitparser.JUnitXml.fromfile(str(path)).tests == 0


def test_a_failed_check_without_a_message_still_says_failed(tmp_path: Path):
    base = result("a")
    item = replace(base.items[0], checks=(CheckResult("x", 1.0, 0.0, False, ""),))
    path = write(tmp_path, replace(base, items=(item,)))
    xmlschema.XMLSchema(SCHEMA).validate(str(path))
    case = next(iter(next(iter(junitparser.JUnitXml.fromfile(str(path))))))
    assert case.result[0].message == "failed"
