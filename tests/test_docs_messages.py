"""The troubleshooting pages quote the grader's messages: every quoted message's fixed words
are still in grader/, so a message changed in the code fails here until the page follows."""

from __future__ import annotations

import re

from readme_commands import ROOT

PAGES = ("docs/instructors/troubleshooting.md", "docs/students/troubleshooting.md")
BLOCK = re.compile(r"```text\n(.*?)```", re.S)
# The parts of a message that vary: numbers, paths, file, item and option names, quoted
# names, the placeholders OUT, FILE, COURSE_DIR, and what Python's JSON parser says. What lies
# between them and the punctuation is the code's own text.
VARYING = re.compile(r"JSON: [^)]*|\S*(?:\d|/|_|\w\.\w|<|>|'[^\w\s]|[^\w\s]'|--\w|\b[A-Z]{2,}\b|[À-ž])\S*|[():;,.]")
WORDS = 3


def source() -> str:
    """grader/'s text, with Python's adjacent string literals joined, as the message shows them."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "grader").rglob("*.py")))
    return re.sub(r"""(["'])\s*\n\s*(?:\+\s*)?[rbfRBF]*\1""", "", text)


def fixed_parts(message: str) -> list[str]:
    """The runs of at least WORDS words between a message's varying parts and its punctuation."""
    parts = (" ".join(part.split()) for part in VARYING.split(message))
    return [part for part in parts if len(part.split()) >= WORDS]


def said(part: str, text: str) -> bool:
    """Whether the code says ``part``: its first or last WORDS words, or all of it but a name at
    either end (a run of words may go on past a value the code fills in)."""
    words = part.split()
    return any(" ".join(run) in text for run in (words[:WORDS], words[-WORDS:], words[1:], words[:-1]))


def quoted() -> list[str]:
    return [line.strip() for page in PAGES for block in BLOCK.findall((ROOT / page).read_text(encoding="utf-8"))
            for line in block.splitlines() if line.strip()]


def test_each_quoted_message_is_the_codes():
    text = source()
    messages = quoted()
    assert len(messages) >= 20
    assert [message for message in messages if not fixed_parts(message)] == []
    assert [(message, part) for message in messages for part in fixed_parts(message) if not said(part, text)] == []


def test_a_message_the_code_does_not_say_is_caught():
    text = source()
    assert all(said(part, text) for part in fixed_parts("error: --out OUT: holds files that are not a grading run's"))
    assert not all(said(part, text) for part in fixed_parts("error: --out OUT: keeps files no grader ever wrote"))
