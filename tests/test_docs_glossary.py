"""The glossary: every term it defines is linked to it where an instructors' page first uses
the term in its prose, and each link lands on a heading of the glossary."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from readme_commands import ROOT

INSTRUCTORS = ROOT / "docs" / "instructors"
GLOSSARY = INSTRUCTORS / "glossary.md"
# Pages written elsewhere: the command-line reference is generated, install.md is another's.
LEFT_OUT = ("glossary.md", "command-line.md", "install.md")
# Each term's anchor, and the words that use it: plurals included, a verb ("check", "digest") not.
TERMS = {
    "bundle": r"bundles?",
    "item": r"(?<!rubric )items?",
    "public-check": r"public checks?",
    "hidden-check": r"hidden checks?",
    "check": r"(?<!public )(?<!hidden )(?:(?<=the )|(?<=a )|(?<=each )|(?<=every )|(?<=failed )|(?<=its ))checks?"
             r"|(?<!public )(?<!hidden )checks",
    "seed": r"seeds?",
    "stub": r"stubs?",
    "written-answer": r"written answers?",
    "digest": r"(?:(?<=the )|(?<=its )|(?<='s ))digests?",
    "sandbox": r"sandbox(?:es)?",
    "rung": r"rungs?",
    "namespace": r"namespaces?",
    "landlock": r"Landlock",
    "worker": r"workers?",
    "catalogue": r"catalogue",
    "mutant": r"mutants?",
    "known-mistake": r"known mistakes?",
    "output-folder": r"output folder",
    "gradebook": r"gradebooks?",
}
# Inline code, a link (its text and target), or a fenced block: never a use of a term.
SPAN = re.compile(r"```.*?```|`[^`]*`|\[([^\]\n]*)\]\(([^)\s]*)\)|^#[^\n]*$", re.S | re.M)


def pages() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(INSTRUCTORS.glob("*.md"))
            if path.name not in LEFT_OUT}


def uses(text: str) -> Iterator[tuple[str, bool, int, int]]:
    """Each term's uses in reading order: (anchor, linked to its glossary entry, start, end)."""
    at = 0
    for span in [*SPAN.finditer(text), None]:
        end = span.start() if span else len(text)
        for anchor, pattern in TERMS.items():
            for found in re.finditer(rf"(?i)\b(?:{pattern})\b", text[at:end]):
                yield anchor, False, at + found.start(), at + found.end()
        if span is not None and span.group(2) is not None:
            target = span.group(2)
            for anchor in TERMS:
                if target.endswith(f"glossary.md#{anchor}"):
                    yield anchor, True, span.start(), span.end()
        at = span.end() if span else end


def first_uses(text: str) -> dict[str, tuple[bool, int, int]]:
    first: dict[str, tuple[bool, int, int]] = {}
    for anchor, linked, start, end in sorted(uses(text), key=lambda use: use[2]):
        first.setdefault(anchor, (linked, start, end))
    return first


def test_each_term_is_linked_where_a_page_first_uses_it():
    unlinked = [f"{name}: {text[start:end]!r}" for name, text in pages().items()
                for anchor, (linked, start, end) in first_uses(text).items() if not linked]
    assert unlinked == []


def test_each_link_lands_on_a_glossary_heading():
    headings = {re.sub(r"[^\w-]", "", line[3:].strip().lower().replace(" ", "-"))
                for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("## ")}
    assert headings == set(TERMS)
    linked = {anchor for text in pages().values() for anchor in re.findall(r"glossary\.md#([\w-]+)", text)}
    assert linked <= headings


def test_an_unlinked_first_use_is_seen():
    text = "The [bundle](glossary.md#bundle) and `item`; each item here, then [item](glossary.md#item)."
    assert first_uses(text)["bundle"][0] is True
    assert first_uses(text)["item"][0] is False


def link(text: str) -> str:
    """``text`` with each term's first unlinked use linked to its glossary entry (how the pages
    were linked; kept here so that a new page can be linked the same way)."""
    for anchor in TERMS:
        use = first_uses(text).get(anchor)
        if use and not use[0]:
            _, start, end = use
            text = f"{text[:start]}[{text[start:end]}](glossary.md#{anchor}){text[end:]}"
    return text


def test_linking_a_page_links_each_term_once():
    linked = link("A bundle has items; each item's checks.\n")
    assert linked == ("A [bundle](glossary.md#bundle) has [items](glossary.md#item); each item's "
                      "[checks](glossary.md#check).\n")
    assert link("We check the rubric items.\n") == "We check the rubric items.\n"
    assert link(linked) == linked


if __name__ == "__main__":  # python tests/test_docs_glossary.py: link the instructors' pages
    for name, page in pages().items():
        path: Path = INSTRUCTORS / name
        path.write_text(link(page), encoding="utf-8")
