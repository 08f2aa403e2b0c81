"""The bundle the bundle-dependent tests read: the shipped one, or the one ``TESTS_BUNDLE`` names
(its folder or its YAML). tests/authoring/test_carry_item.py runs those tests on a copy of the
bundle with an item added, to show that adding an item edits no test; tests/each_bundle.py runs
``PER_BUNDLE`` so on every shipped bundle but the first, which pytest's own run covers."""

from __future__ import annotations

import os
from pathlib import Path

from grader.assignment.bundle import bundle_yaml
from grader.assignment.config import DEFAULT_ASSIGNMENT

BUNDLE_VARIABLE = "TESTS_BUNDLE"
BUNDLE_PATH = bundle_yaml(Path(os.environ.get(BUNDLE_VARIABLE) or DEFAULT_ASSIGNMENT)).resolve()

# The tests that hold for any bundle (its YAML, checks, catalogue, source notebooks, release and
# check.py), as runs of pytest (each -k applies to its own run). A bundle's own numbers (its
# sample class's grades, its reference's oracles) are its own test folder's, tests/assignments/<name>/.
PER_BUNDLE = (
    ["tests/assignment/test_catalogue.py", "-k", "unique"],
    ["tests/test_notebooks.py", "-k", "source_notebook_runs_without_error or source_visible_tests_pass"],
    ["tests/nbgrader_course/test_release.py", "-k",
     "not rejects_a_directory and not into_a_file and not release_again and not stops_before"],
    ["tests/studentcheck/test_studentcheck.py", "-k",
     "correct_notebooks_pass or holds_only_public or needs_no_reference"],
)
