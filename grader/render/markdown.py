"""Text from a student, written into Markdown so that it renders as itself: no heading, list,
link, image, HTML tag, table, emphasis or math of the student's survives, in CommonMark and
in GitHub's flavour (whose bare ``www.`` and ``http://`` become links). Every Markdown writer
puts student text (messages, printed output, cells, file names, ids) through these; our own
sentences it writes as they are.

``md_inline`` for text within a sentence (never at the start of a line, where ``-``, ``>``
or ``1.`` begin blocks): on one line, with a backslash before each character only where it
could make markup there: code, emphasis, math, strikethrough, tables and a heading's closing
``#`` anywhere; ``_`` at a word's edge; ``]`` before ``(``, ``[`` or ``:`` (a link, an image,
a reference) and ``[`` before ``^`` (a footnote); ``<`` before anything but a space (a tag, a
comment, an autolink); ``&`` that begins an entity; ``@`` between the parts of an address,
the ``.`` after ``www`` and the ``:`` before ``//`` (GitHub's bare links). The rest stays as it
is: a check's message that quotes the student reads as written ("at [0, 1]", "w.r.t.",
"embedding.weight[0]", "K^T"), in the file and rendered. ``md_code`` for a code span on one
line. ``md_block`` for text of many lines: a fenced block whose fence is longer than any run of
backticks in it, so nothing in the text can close it.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(
    r"[\\`*$~|#]"
    r"|(?<![^\W_])_|_(?![^\W_])"  # an underscore inside a word emphasises nothing (CommonMark, GitHub)
    r"|\](?=[(\[:])|\[(?=\^)"
    r"|<(?!\s)"
    r"|&(?=#|[A-Za-z0-9]+;)"
    r"|(?<=[\w.+-])@(?=\w)"
    r"|(?<=[Ww]{3})\."
    r"|:(?=//)"
)


def one_line(text: str) -> str:
    """``text`` with its line breaks as spaces: CommonMark's, and those other renderers or
    editors may take as one (``str.splitlines``'s)."""
    return " ".join(text.splitlines())


def md_inline(text: str) -> str:
    """``text`` as inline Markdown that shows ``text``, on one line."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(), one_line(text))


def _fence(text: str, least: int) -> str:
    """Backticks, more than the longest run of them in ``text`` (and at least ``least``)."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    return "`" * max(least, longest + 1)


def md_code(text: str) -> str:
    """``text`` as a code span on one line (spaced from its fence when it starts or ends with a backtick)."""
    text = one_line(text)
    fence = _fence(text, 1)
    # A parser takes one space off each end when both have one (and it is not all spaces).
    pad = " " if text.startswith("`") or text.endswith("`") or (text[:1] == text[-1:] == " " and text.strip()) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_block(text: str, indent: str = "") -> list[str]:
    """``text`` as the lines of a fenced code block, each after ``indent`` (a list item's
    indentation, to stay in the item)."""
    fence = _fence(text, 3)
    lines = text.splitlines()
    return [f"{indent}{fence}text", *(f"{indent}{line}" if line else "" for line in lines), f"{indent}{fence}"]
