"""Written answers read from a submission as the trusted worker already holds it: a notebook's
markdown cells whose nbgrader ``grade_id`` is a question's id, or a ``.py`` file's
``# %% [markdown]`` cells whose first line is ``# answer: <id>``. Text only: nothing is run,
and what a student wrote is bounded (``MAX_ANSWER_CHARS``) before it goes anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..records.answers import is_answer

MAX_ANSWER_CHARS = 20_000  # a real answer is a paragraph; the rest would only cost every output

_MARKDOWN_CELL = re.compile(r"#\s*%%.*\[markdown\]")
_ANY_CELL = re.compile(r"#\s*%%")
_ANSWER_LINE = re.compile(r"#\s*answer:\s*(\S+)\s*$")


@dataclass(frozen=True)
class Extracted:
    """A question's answer as read: its text (None: no answer cell, or it was left as released,
    or empty) and what was amiss ("" when nothing was)."""

    question: str
    text: str | None
    note: str = ""


def notebook_answers(cells: Any, questions: Sequence[str]) -> tuple[Extracted, ...]:
    """The answers to ``questions`` in a notebook's list of ``cells`` (as parsed from its JSON)."""
    sources: dict[str, list[str | None]] = {question: [] for question in questions}
    for cell in cells if isinstance(cells, list) else ():
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        metadata = cell.get("metadata")
        marks = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        question = marks.get("grade_id") if isinstance(marks, dict) else None
        if isinstance(question, str) and question in sources:
            sources[question].append(_text(cell.get("source")))
    return tuple(_chosen(question, texts, "cells") for question, texts in sources.items())


def module_answers(text: str, questions: Sequence[str]) -> tuple[Extracted, ...]:
    """The answers to ``questions`` in a ``.py`` file: each ``# %% [markdown]`` cell whose first
    line is ``# answer: <id>``; the cell's other comment lines, their ``#`` taken off, are the answer."""
    sources: dict[str, list[str | None]] = {question: [] for question in questions}
    lines = text.replace("\r\n", "\n").split("\n")
    starts = [i for i, line in enumerate(lines) if _ANY_CELL.match(line)]
    for start, end in zip(starts, [*starts[1:], len(lines)][:len(starts)], strict=True):
        if not _MARKDOWN_CELL.match(lines[start]):
            continue
        body = [line for line in lines[start + 1:end] if line.strip()]
        named = _ANSWER_LINE.match(body[0].strip()) if body else None
        if named is None or named.group(1) not in sources:
            continue
        comments = [re.sub(r"^\s*# ?", "", line) for line in lines[start + 1:end] if line.lstrip().startswith("#")]
        sources[named.group(1)].append("\n".join(comments[1:]))
    return tuple(_chosen(question, texts, "# answer: cells") for question, texts in sources.items())


def _text(source: Any) -> str | None:
    """A cell's source as text; None when it is neither a string nor a list of strings."""
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def _chosen(question: str, texts: list[str | None], kind: str) -> Extracted:
    """One answer from the cells that name ``question``: the first with an answer in it."""
    notes = []
    if len(texts) > 1:
        notes.append(f"{len(texts)} {kind} hold this answer; the first answered one was read")
    if any(text is None for text in texts):
        notes.append("an answer cell's text is not text and was not read")
    text = next((t for t in texts if is_answer(t)), None)
    if text is not None:
        text = text.strip("\n")
        if len(text) > MAX_ANSWER_CHARS:
            notes.append(f"cut at {MAX_ANSWER_CHARS:,} characters (it has {len(text):,})")
            text = text[:MAX_ANSWER_CHARS]
    return Extracted(question, text, "; ".join(notes))
