"""The bundle the bundle-dependent tests read: the shipped one, or the one ``TESTS_BUNDLE``
names (its folder or its YAML). tests/authoring/test_carry_item.py runs those tests on a copy
of the bundle with an item added, to show that adding an item edits no test."""

from __future__ import annotations

import os
from pathlib import Path

from grader.assignment.bundle import bundle_yaml
from grader.assignment.config import DEFAULT_ASSIGNMENT

BUNDLE_VARIABLE = "TESTS_BUNDLE"
BUNDLE_PATH = bundle_yaml(Path(os.environ.get(BUNDLE_VARIABLE) or DEFAULT_ASSIGNMENT)).resolve()
