"""The CSV files a run writes (grades.csv, moodle.csv, canvas.csv, changes.csv, integrity.csv),
all by ``csv_text``: a cell that a spreadsheet would run as a formula is written as text.

Instructors open these files in a spreadsheet, and a cell may hold what a student chose (a
name in an LMS, a folder's name). As OWASP recommends against CSV injection, a cell that
begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (after any spaces) gets a leading ``'``, which
a spreadsheet takes as "text". A cell that is a whole number (the scores, ``-1.5`` and
``+2`` included) stays a number, for the LMS importers. A cell that begins with ``'`` gets one
too, so that ``cell_text`` gives back exactly what was written (a regrade reads grades.csv and
changes.csv again).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence

TEXT_MARK = "'"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", TEXT_MARK)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def cell(text: str) -> str:
    """``text`` as a cell that a spreadsheet shows and never runs."""
    # After any leading spaces too: an import that trims them would find the formula.
    if (text.startswith(_FORMULA_START) or text.lstrip().startswith(_FORMULA_START)) and not _NUMBER.fullmatch(text):
        return TEXT_MARK + text
    return text


def cell_text(value: str) -> str:
    """What ``cell`` was given, from a cell of a file this package wrote."""
    return value[1:] if value.startswith(TEXT_MARK) else value


def csv_text(rows: Iterable[Sequence[str]], lineterminator: str = "\r\n") -> str:
    """``rows`` as a CSV file's text, every cell through ``cell``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=lineterminator)
    writer.writerows([cell(value) for value in row] for row in rows)
    return out.getvalue()
