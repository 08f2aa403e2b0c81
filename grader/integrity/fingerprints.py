"""The code a student wrote for each item, normalised and fingerprinted.

The normalisation works on Python's own syntax tree (``ast``): the tokens are the tree's nodes
in the order they are written, so that what does not change the program does not change the
fingerprints: comments, docstrings, annotations, layout and strings are gone, every variable,
argument and helper is called ``v`` (library attributes such as ``.exp`` or ``.W_q`` and keyword
names stay: they carry the method), and ``np.matmul(a, b)``, ``a.dot(b)`` or ``torch.bmm(a, b)``
read as ``a @ b``. Each item is fingerprinted on its own, so reordering functions changes
nothing either. (Walking the tree once is about three times cheaper than writing it back as text
and splitting that, which mattered: the report reads every student's code in the run's main
process.)

Fingerprints are winnowed hashes of token ``K``-grams (Schleimer, Wilkerson and Aiken 2003, the
method of MOSS and copydetect): every run of ``K + W - 1`` tokens two programs share gives
both at least one common fingerprint. Each fingerprint keeps the lines of the student's own
code it covers, for the page to mark.
"""

from __future__ import annotations

import ast
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..submissions.ipython import rewrite_lines
from ..submissions.load import Cell

K = 5  # tokens per k-gram
W = 4  # k-grams per window
_MATMUL = {"matmul", "dot", "mm", "bmm"}
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Fields that do not change what a program computes, or that name its own variables.
_SKIPPED = frozenset({"ctx", "annotation", "returns", "type_comment", "type_params", "name", "asname",
                      "names", "id", "arg", "kind", "level", "conversion", "is_async"})
_BASE = np.uint64(0x9E3779B97F4A7C15)  # an odd multiplier for the k-gram hash (the golden ratio's)
Print = tuple[int, int, int]  # (hash, first line, last line) of the code it covers, 1-based in the definition


@dataclass(frozen=True)
class ItemCode:
    """One definition (a ``def`` or ``class``) as the student wrote it, and its fingerprints."""

    name: str
    source: str
    where: str  # the cell, as the student sees it
    prints: tuple[Print, ...]

    @property
    def hashes(self) -> frozenset[int]:
        return frozenset(h for h, _, _ in self.prints)


def definitions(cells: Iterable[Cell], names: Iterable[str] | None = None) -> dict[str, ItemCode]:
    """The last top-level definition of each of ``names`` (every one, without ``names``) in
    ``cells``, as a notebook's kernel would keep it. A cell that does not parse is skipped."""
    wanted = None if names is None else set(names)
    found: dict[str, ItemCode] = {}
    for cell in cells:
        tree = _parse(cell.source)
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, _DEFINITIONS) and (wanted is None or node.name in wanted):
                name, text = node.name, "\n".join(cell.source.splitlines()[node.lineno - 1:node.end_lineno])
                try:
                    prints = fingerprint(node)
                except (RecursionError, MemoryError, ValueError):  # a pathological submission
                    continue
                found[name] = ItemCode(name, text, cell.label, prints)
    return found


def _parse(source: str) -> ast.Module | None:
    for text in (source, None):
        try:
            return ast.parse(rewrite_lines(source) if text is None else text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def fingerprint(definition: ast.stmt) -> tuple[Print, ...]:
    """The winnowed fingerprints of one definition, lines counted from its first line."""
    texts, lines = tokens(definition)
    if len(texts) < K:
        return ()
    ids = np.fromiter((_token_id(text) for text in texts), dtype=np.uint64, count=len(texts))
    n = len(texts) - K + 1
    hashes = np.zeros(n, dtype=np.uint64)
    for j in range(K):  # sum of id * BASE ** (K - 1 - j), wrapping at 2 ** 64
        hashes = hashes * _BASE + ids[j:j + n]
    at = np.asarray(lines) - (definition.lineno - 1)
    last = np.lib.stride_tricks.sliding_window_view(at, K).max(axis=1)
    return tuple((int(hashes[j]), int(at[j]), int(last[j])) for j in winnow(hashes))


def tokens(definition: ast.AST) -> tuple[list[str], list[int]]:
    """The normalised tokens of ``definition`` in the order they are written, and the line of each."""
    texts: list[str] = []
    lines: list[int] = []

    def add(text: str, line: int) -> None:
        texts.append(text)
        lines.append(line)

    def walk(node: ast.AST, line: int) -> None:
        kind = type(node)
        line = getattr(node, "lineno", line)
        if kind is ast.Name or kind is ast.arg:
            add("v", line)
        elif kind is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            add("S" if isinstance(value, (str, bytes)) else repr(value), line)
        elif kind is ast.JoinedStr:
            add("S", line)
        elif kind is ast.Attribute:
            walk(node.value, line)  # type: ignore[attr-defined]
            add("." + node.attr, line)  # type: ignore[attr-defined]
        elif kind is ast.keyword:
            add(f"{node.arg}=", line)  # type: ignore[attr-defined]
            walk(node.value, line)  # type: ignore[attr-defined]
        elif isinstance(node, ast.Call) and (operands := _matmul(node)) is not None:
            add("BinOp", line)
            walk(operands[0], line)
            add("MatMult", line)
            walk(operands[1], line)
        else:
            add(kind.__name__, line)
            for field in node._fields:
                if field in _SKIPPED:
                    continue
                value = getattr(node, field, None)
                if field == "body" and isinstance(node, _DEFINITIONS):
                    value = _without_docstring(node.body)
                if isinstance(value, list):
                    for child in value:
                        if isinstance(child, ast.AST):
                            walk(child, line)
                elif isinstance(value, ast.AST):
                    walk(value, line)

    walk(definition, definition.lineno)  # type: ignore[attr-defined]
    return texts, lines


def _matmul(call: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    """The operands of ``np.matmul(a, b)``, ``torch.bmm(a, b)`` or ``a.dot(b)``; None for any other call."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _MATMUL or call.keywords:
        return None
    if len(call.args) == 2:
        return call.args[0], call.args[1]
    if len(call.args) == 1:
        return func.value, call.args[0]
    return None


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]
    return body


_IDS: dict[str, int] = {}


def _token_id(text: str) -> int:
    # Two 32-bit checksums in one 64-bit number: stable across processes (unlike ``hash``), so
    # that a run's report does not depend on the interpreter's hash seed. Cached: a class
    # repeats a few hundred tokens.
    found = _IDS.get(text)
    if found is None:
        data = text.encode()
        found = _IDS[text] = zlib.crc32(data) << 32 | zlib.adler32(data)
    return found


def winnow(hashes: Sequence[int] | np.ndarray, window: int = W) -> list[int]:
    """The positions winnowing keeps: the rightmost smallest hash of every window, in order
    (with the rightmost minimum, a later window never picks an earlier position)."""
    values = np.asarray(hashes, dtype=np.uint64)
    if len(values) <= window:
        return [] if not len(values) else [len(values) - 1 - int(np.argmin(values[::-1]))]
    windows = np.lib.stride_tricks.sliding_window_view(values, window)
    at = np.arange(len(windows)) + window - 1 - np.argmin(windows[:, ::-1], axis=1)
    return at[np.concatenate(([True], at[1:] != at[:-1]))].tolist()


_SOLUTION = re.compile(r"^[ \t]*### BEGIN SOLUTION.*?^[ \t]*### END SOLUTION[^\n]*$", re.M | re.S)


def starter(source: str) -> str:
    """A source notebook's cell as the release gives it: each solution replaced by the stub."""
    return _SOLUTION.sub(lambda m: m.group(0)[:len(m.group(0)) - len(m.group(0).lstrip())]
                         + "raise NotImplementedError()", source)
