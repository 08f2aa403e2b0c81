"""A ``.py`` submission cut into cells, as a notebook's would be: its ``# %%`` cells, else its
top-level statements (found with ``ast``, which reads the text and runs nothing). Part of
reading a submission (``grader.submissions.load``)."""

from __future__ import annotations

import ast
import re

MAX_SPLIT_CHARS = 1024 * 1024  # a larger .py file runs as one cell (real ones are some 20 KB)

_CELL_MARK = re.compile(r"#\s*%%")  # a ``# %%`` cell, as in VS Code, Spyder and jupytext
_ANY_CELL_MARK = re.compile(r"^#[^\S\n]*%%", re.MULTILINE)  # the same at a line's start, in the whole text at once


def module_cells(text: str) -> list[tuple[int, str, str]]:
    """A ``.py`` file as a notebook would run it: its ``# %%`` cells where it has them, else
    each top-level statement, in order, so that a statement that fails (a missing optional
    module, a slow demonstration) costs only what it defines. Each cell is (its first line,
    its source, the line its label shows); the source keeps its lines' numbers (it is padded
    with blank lines), so a traceback or a SyntaxError names the line of the file."""
    text = text.replace("\r\n", "\n")
    if len(text) > MAX_SPLIT_CHARS:  # parsing it here would cost the trusted process too much
        return [(1, text, "")]
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if _ANY_CELL_MARK.search(text):
        starts = [0] + [i for i, line in enumerate(lines) if _CELL_MARK.match(line)]
        bounds = list(zip(starts, starts[1:] + [len(lines)], strict=True))
        future = _future_imports(_parsed_whole(text) if "__future__" in text else None)
    else:
        bounds, tree = _statements(lines)  # its one parse of the whole file gives the __future__ imports
        future = _future_imports(tree)
    pieces = [(a, lines[a:b]) for a, b in _at_most(bounds, len(lines))]
    cells: list[tuple[int, str, str]] = []
    for start, piece in pieces:
        label = next((line for line in piece if line.strip() and not _CELL_MARK.match(line)), None)
        if label is None:
            continue
        if future and start > 0:  # the file's __future__ imports hold for every statement
            source = future + "\n" * start + "".join(piece)
        else:
            source = "\n" * start + "".join(piece)
        cells.append((start + 1, source, label))
    return cells


def _statements(lines: list[str]) -> tuple[list[tuple[int, int]], ast.Module | None]:
    """(first, end) line indexes of each top-level statement of ``lines`` (statements that
    share a line go together), and the whole module's tree when it parses. A part that does
    not parse becomes one piece, from the top-level line its error is in to the next top-level
    line, for the sandbox to report, and the rest is parsed again. All parses of a module read
    at most ``_PARSE_CHARS`` together: past that, what is left is one piece (a broken file of
    the largest size is parsed once; 20 parses of a 1 MB file of unclosed brackets held the
    worker for 4.4 s)."""
    pieces: list[tuple[int, int]] = []
    offset, budget, whole = 0, _PARSE_CHARS, None
    while offset < len(lines):
        rest = lines[offset:]
        text = "".join(rest)
        if offset and len(text) > budget:
            pieces.append((offset, len(lines)))
            break
        budget -= len(text)
        try:
            tree = ast.parse(text)
        except SyntaxError as exc:
            error = min(max((exc.lineno or 1) - 1, 0), len(rest) - 1)
            # Looked for from the error outwards (next, not max or min, which read every line):
            # a scan of all the lines per error held the worker for seconds.
            first = next((i for i in range(error, -1, -1) if _top_level(rest[i])), 0)
            while first > 0 and rest[first - 1].startswith("@"):
                first -= 1
            end = next((i for i in range(error + 1, len(rest)) if _top_level(rest[i])), len(rest))
            head_text = "".join(rest[:first])
            head = _parsed(head_text, offset) if len(head_text) <= budget else None
            budget -= len(head_text) if len(head_text) <= budget else 0
            pieces += head if head is not None else [(offset, offset + first)]
            pieces.append((offset + first, offset + end))
            offset += end
            continue
        except (ValueError, RecursionError, MemoryError):  # not for the parser: one piece
            pieces.append((offset, len(lines)))
            break
        pieces += _pieces(tree, offset)
        whole = tree if offset == 0 else None
        break
    return [(a, b) for a, b in pieces if b > a], whole


def _at_most(pieces: list[tuple[int, int]], lines: int) -> list[tuple[int, int]]:
    """``pieces``, the last ones run together into one, so that there are at most
    ``_MAX_PIECES`` and the blank lines that pad each to its place in the file come to at most
    ``_MAX_PADDING``: padding grows with the pieces times the lines, and a file of many short
    cells made the trusted worker hold gigabytes."""
    most = max(1, min(_MAX_PIECES, _MAX_PADDING // max(lines, 1)))
    if len(pieces) <= most:
        return pieces
    return pieces[:most - 1] + [(pieces[most - 1][0], pieces[-1][1])]


_MAX_PIECES = 1000  # cells of one module: each costs the sandbox a message
_MAX_PADDING = 8 * 1024 * 1024  # blank lines, over all the cells of one module
# What all parses of one module may read together: one parse of the largest file cut into
# statements (a parse costs the worker some 240 bytes of memory and 0.2 us per character).
_PARSE_CHARS = MAX_SPLIT_CHARS


def _parsed(text: str, offset: int) -> list[tuple[int, int]] | None:
    tree = _parsed_whole(text)
    return None if tree is None else _pieces(tree, offset)


def _pieces(tree: ast.Module, offset: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    for node in tree.body:
        decorators = getattr(node, "decorator_list", [])
        first = offset + min([node.lineno] + [d.lineno for d in decorators]) - 1
        end = offset + (node.end_lineno or node.lineno)
        if pieces and first < pieces[-1][1]:  # on the line where the last one ends
            pieces[-1] = (pieces[-1][0], max(end, pieces[-1][1]))
        else:
            pieces.append((first, end))
    return pieces


def _top_level(line: str) -> bool:
    """A line that may begin a statement of its own: code in column 0 that does not go on
    an earlier one."""
    return bool(line[:1].strip()) and not line.startswith(
        ("#", "@", ")", "]", "}", "else", "elif", "except", "finally"))


def _parsed_whole(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _future_imports(tree: ast.Module | None) -> str:
    """The ``from __future__`` imports of a module that parses, on one line, or ""."""
    if tree is None:
        return ""
    names = [alias.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "__future__"
             for alias in node.names]
    return f"from __future__ import {', '.join(names)}" if names else ""
