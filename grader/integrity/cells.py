"""The cells the report parses, within a budget: ``ast.parse`` holds about 240 bytes of memory
per byte of code, so a cell of 10 MB would take the worker that fingerprints it to gigabytes.
A cell, and a notebook's cells together, are read up to the size of a ``.py`` file that the
grader still cuts into cells (``MAX_SPLIT_CHARS``, 1 MB; real notebooks hold some 20 KB of
code); what is beyond is not compared, and named."""

from __future__ import annotations

from collections.abc import Iterable

from ..submissions.load import Cell
from ..submissions.modulecells import MAX_SPLIT_CHARS


def within(cells: Iterable[Cell]) -> tuple[list[Cell], list[str]]:
    """The cells to parse, in order, and one note for each cell left out, saying why."""
    kept: list[Cell] = []
    notes: list[str] = []
    total = 0
    for cell in cells:
        # A module's cells keep their lines' numbers with blank lines before them: those parse for nothing.
        size = len(cell.source.lstrip("\n"))
        if size > MAX_SPLIT_CHARS:
            notes.append(f"{cell.label}: not compared: {_mb(size)} of code, more than the {_mb(MAX_SPLIT_CHARS)} "
                         "the report reads of a cell")
        elif total + size > MAX_SPLIT_CHARS:
            notes.append(f"{cell.label}: not compared: the code before it already holds the "
                         f"{_mb(MAX_SPLIT_CHARS)} the report reads of a notebook")
        else:
            total += size
            kept.append(cell)
    return kept, notes


def _mb(size: int) -> str:
    return f"{size / 2**20:.1f} MB"
