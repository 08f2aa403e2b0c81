"""The site has a contract page per shipped bundle: its tables generated from that bundle's YAML
(``<!-- generated: points NAME -->``; the first assignment's markers name none), its items each
described; a page written before its bundle ships shows a note where the tables go."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_docs import DOCS, hook

from grader.assignment.config import DEFAULT_NAME, parse_assignment, read_yaml
from grader.assignment.shipped import shipped_names, shipped_yaml


def page_of(name: str) -> tuple[Path, str]:
    """The page holding the bundle's points table, and its text."""
    marker = "<!-- generated: points -->" if name == DEFAULT_NAME else f"<!-- generated: points {name} -->"
    pages = [(path, path.read_text(encoding="utf-8")) for path in sorted(DOCS.rglob("*.md"))
             if "hooks" not in path.parts]
    found = [(path, text) for path, text in pages if marker in text]
    assert len(found) == 1, f"{name}: {len(found)} pages hold {marker}"
    return found[0]


@pytest.mark.parametrize("name", shipped_names())
def test_every_shipped_bundle_has_a_contract_page_describing_each_item(name: str):
    path, text = page_of(name)
    assignment = parse_assignment(read_yaml(shipped_yaml(name)), shipped_yaml(name))
    assert sorted(re.findall(r"^### `(\w+)\(", text, re.M)) == sorted(item.name for item in assignment.items), path
    if assignment.written:
        marker = "<!-- generated: written -->" if name == DEFAULT_NAME else f"<!-- generated: written {name} -->"
        assert marker in text


def test_a_bundle_named_in_a_marker_gets_its_own_tables():
    generated = hook()
    assert generated.fill(f"<!-- generated: points {DEFAULT_NAME} -->") == generated.fill("<!-- generated: points -->")
    assert generated.fill(f"<!-- generated: written {DEFAULT_NAME} -->") == generated.fill(
        "<!-- generated: written -->")


def test_a_bundle_not_shipped_yet_gets_a_note_in_place_of_its_tables():
    text = hook().fill("<!-- generated: points not_shipped_here -->")
    assert text.startswith("!!! note") and "`assignments/not_shipped_here/assignment.yaml`" in text
    assert "| item |" not in text


def test_the_llm_attention_page_names_its_bundle():
    """Its page is written before the bundle lands; once it ships, the first test holds it to its YAML."""
    text = (DOCS / "contract-llm.md").read_text(encoding="utf-8")
    assert "<!-- generated: points llm_attention -->" in text and "<!-- generated: written llm_attention -->" in text
