"""The LMS gradebook files' own columns (canvas.csv, moodle.csv): the written answers', one per
question that a person has graded for at least one student, after the file's own columns; and
the feedback comment, as the HTML the LMS stores it as."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence

# What Moodle's text filters would still make of escaped text as it shows it (filter_urltolink:
# bare addresses as links; filter_mathjaxloader and filter_tex: $$ and \( \[ as TeX), as character
# references the filters do not match and the reader sees as the characters.
_FILTERED = re.compile(r"[\\$]|:(?=//)|(?<=[Ww]{3})\.")


def graded_questions(questions: Sequence[str], earned: Iterable[Mapping[str, float]]) -> list[str]:
    """The ``questions`` graded for at least one student (``earned``: each student's points by question)."""
    earned = list(earned)
    return [question for question in questions if any(question in points for points in earned)]


def written_column(question: str) -> str:
    """The header of a written answer's own column: an import makes it a grade item of its own."""
    return f"{question} (written)"


def html_comment(lines: Sequence[str]) -> str:
    """``lines`` (plain text, each of one or more lines) as HTML that shows them as written: no
    tag, entity, link or formula of the text's, and each line break a ``<br>`` (in HTML a plain
    newline is a space)."""
    text = html.escape("\n".join(lines), quote=False)
    text = _FILTERED.sub(lambda m: f"&#{ord(m.group())};", text)
    return "<br>".join(text.splitlines())
