"""``junit.xml``: JUnit XML for CI dashboards: one ``<testsuite>`` per student, one
``<testcase>`` per check (``classname`` is the assignment and item), a failed check carrying a
``<failure>`` whose message is the property that broke. Suites are streamed to a side file as
results arrive; ``close`` writes the file with the totals and removes the side file."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TextIO

from ..assignment.bundle import Bundle
from ..records.answers import GRADED
from ..records.results import RunInfo, SubmissionResult
from ..render.feedback_text import NO_ANSWER, check_output, submission_notes, written_points
from ..render.words import counted, fmt_points
from . import Reporter

# What XML 1.0 cannot hold, even escaped (student ids and printed output can hold anything).
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


class JUnitXml(Reporter):
    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / "junit.xml"
        self.part = out_dir / ".junit.xml.suites"
        self.name = ""
        self.started = ""
        self._file: TextIO | None = None
        self.tests = self.failures = 0
        self.seconds = 0.0

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.name, self.started = bundle.name, run.started
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.part, "w", encoding="utf-8")

    def add(self, result: SubmissionResult) -> None:
        assert self._file is not None, "start() first"
        suite = testsuite(self.name, result)
        self.tests += int(suite.get("tests", "0"))
        self.failures += int(suite.get("failures", "0"))
        self.seconds += result.seconds
        self._file.write(ET.tostring(suite, encoding="unicode") + "\n")

    def close(self) -> None:
        assert self._file is not None, "start() first"
        self._file.close()
        root = ET.Element("testsuites", name=xml_text(self.name), tests=str(self.tests),
                          failures=str(self.failures), errors="0", time=f"{self.seconds:.3f}")
        empty = ET.tostring(root, encoding="unicode")
        opening = empty[: -len(" />")] + ">"  # the element opened, its suites to follow
        with open(self.path, "w", encoding="utf-8") as out, open(self.part, encoding="utf-8") as suites:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n{opening}\n')
            shutil.copyfileobj(suites, out)
            out.write("</testsuites>\n")
        self.part.unlink()


def testsuite(assignment: str, result: SubmissionResult) -> ET.Element:
    """One student's suite: a test case per check, failures with the property's message; a case
    per written answer, skipped while it awaits a grader (no answer is 0 points, not skipped)."""
    checks = [(item, check) for item in result.items for check in item.checks]
    failed = sum(1 for _, check in checks if not check.passed)
    awaiting = sum(1 for row in result.written if row.awaits_grader)
    suite = ET.Element("testsuite", name=xml_text(result.student), tests=str(len(checks) + len(result.written)),
                       failures=str(failed), errors="0", skipped=str(awaiting), time=f"{result.seconds:.3f}")
    properties = ET.SubElement(suite, "properties")
    for name, value in (("score", result.score), ("max_score", result.max_score)):
        ET.SubElement(properties, "property", name=name, value=fmt_points(value))
    for item, check in checks:
        case = ET.SubElement(suite, "testcase", name=check.name, classname=f"{assignment}.{item.name}", time="0")
        if not check.passed:
            message = xml_text(check_output(item, check))
            failure = ET.SubElement(case, "failure", message=message, type="CheckFailed")
            failure.text = f"{message}\n(0 of {counted(check.points, 'point')})"
    for row in result.written:
        case = ET.SubElement(suite, "testcase", name=xml_text(row.answer.question), classname=f"{assignment}.written",
                             time="0")
        if row.earned is None:
            ET.SubElement(case, "skipped", message=written_points(row, ()))
        else:
            given = "given by a person" if row.status == GRADED else NO_ANSWER
            ET.SubElement(case, "system-out").text = f"{counted(row.earned, 'point')}, {given}"
    printed = [f"{item.name} printed:\n{item.output}" for item in result.items if item.output]
    notes = submission_notes(result)
    if notes or printed:
        ET.SubElement(suite, "system-out").text = xml_text("\n".join(notes + printed))
    return suite
