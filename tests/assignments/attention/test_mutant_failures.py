"""Every catalogue mutant, of both notebooks: it fails the checks its `# loses:` line names,
the first of them with a message that holds the phrases of its `# says:` line, and each
of its failures that is a tolerance comparison states the size of the error against
the tolerance, and lands outside it."""

from __future__ import annotations

import re

import pytest
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import Entry, load_catalogue

# Mutants overflow and divide by zero on purpose; their warnings are not news.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

MUTANTS = {e.name: e for e in load_catalogue(load_bundle(BUNDLE_PATH), ("mutant",))}
_SIZE_AGAINST_TOLERANCE = re.compile(r"\d\.\de[+-]\d\d\b.*\btolerance \d\.\de[+-]\d\d")


@pytest.fixture
def own_item(assignment, grade):
    def graded(entry: Entry):  # type: ignore[no-untyped-def]
        if entry.notebook == "attention_torch":
            pytest.importorskip("torch")
        return grade(assignment, entry.notebook, entry)[entry.item]

    return graded


@pytest.mark.parametrize("name", sorted(n for n, e in MUTANTS.items() if e.loses))
def test_mutant_fails_the_checks_its_header_names(own_item, name):
    entry = MUTANTS[name]
    failed = {c.name for c in own_item(entry).checks if not c.passed}
    assert set(entry.loses) <= failed, f"{name} passes {set(entry.loses) - failed}"


@pytest.mark.parametrize("name", sorted(n for n, e in MUTANTS.items() if e.says))
def test_the_message_names_the_property_its_header_says(own_item, name):
    entry = MUTANTS[name]
    message = {c.name: c.message for c in own_item(entry).checks if not c.passed}.get(entry.loses[0])
    assert message is not None, f"{name} passes {entry.loses[0]}"
    for phrase in entry.says:
        assert phrase in message, (phrase, message)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_numeric_failures_state_the_size_against_the_tolerance(own_item, name):
    for check in own_item(MUTANTS[name]).checks:
        if check.margin is not None:
            assert check.margin > 1, (check.name, check.margin)
            assert _SIZE_AGAINST_TOLERANCE.search(check.message), (check.name, check.message)
