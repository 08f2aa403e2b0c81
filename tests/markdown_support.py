"""Markdown as a reader sees it, for the tests of what we write: ``shown`` (the text with
its escapes undone, to look for sentences in) and ``rendered`` (HTML from a CommonMark parser
with GitHub's tables, strikethrough and bare-address links, and math, raw HTML let through,
and the tags it made)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown(markdown: str) -> str:
    """``markdown`` with its backslash escapes and entities undone."""
    return html.unescape(_ESCAPE.sub(r"\1", markdown))


class Tags(HTMLParser):
    """Each start tag of a page, in order, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def rendered(markdown: str) -> Tags:
    """The tags and the text of ``markdown`` rendered (mistune: nbconvert's, with nbgrader)."""
    mistune = pytest.importorskip("mistune")
    to_html = mistune.create_markdown(escape=False, plugins=["table", "strikethrough", "url", "math", "footnotes"])
    tags = Tags()
    tags.feed(str(to_html(markdown)))
    tags.close()
    return tags
