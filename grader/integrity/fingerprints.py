"""The code a student wrote for each item, normalised and fingerprinted.

The code is normalised first (``normalise``: what does not change the program does not change
the fingerprints).

Fingerprints are winnowed hashes of token ``K``-grams (Schleimer, Wilkerson and Aiken 2003, the
method of MOSS and copydetect): every run of ``K + W - 1`` tokens two programs share gives
both at least one common fingerprint. Each fingerprint keeps the lines of the student's own
code it covers, for the page to mark.
"""

from __future__ import annotations

import ast
import zlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..records.code import ItemCode
from ..submissions.ipython import rewrite_lines
from ..submissions.load import Cell
from .cells import within
from .normalise import DEFINITIONS, FUNCTIONS, Tokens, statement_tokens, without_docstring
from .winnowing import prints as _prints

_REACHED = 64  # definitions an item reaches, at most (a student's helpers are a few)


@dataclass(frozen=True)
class _Bound:
    node: ast.stmt  # a top-level definition
    lines: list[str]  # its cell's
    where: str


def definitions(cells: Iterable[Cell], names: Iterable[str] | None = None) -> dict[str, ItemCode]:
    """The code each of ``names`` (every top-level definition, without ``names``) runs in
    ``cells``, as a notebook's kernel would keep it: the last binding of the name (a definition,
    or ``name = other`` for another name's), the functions attached to it later
    (``Cls.method = function``), and, at any depth, the student's own helpers they call (other
    items of ``names`` are items of their own: named in ``calls``, not read). A cell that does
    not parse is skipped, and so is one beyond the budget (``cells.within``: the worker names it).
    A stub (``stub``) is marked: it is no one's code."""
    bound: dict[str, _Bound] = {}
    alias: dict[str, str] = {}
    attached: dict[str, list[str]] = defaultdict(list)
    for cell in within(cells)[0]:
        tree = _parse(cell.source)
        if tree is None:
            continue
        lines, where = cell.source.splitlines(), cell.label
        for node in tree.body:
            if isinstance(node, DEFINITIONS):
                bound[node.name] = _Bound(node, lines, where)
                alias.pop(node.name, None)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Name):
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    alias[target.id] = node.value.id
                    bound.pop(target.id, None)
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    attached[target.value.id].append(node.value.id)
    graded = set(bound) | set(alias) if names is None else set(names)
    found: dict[str, ItemCode] = {}
    for name in sorted(graded):
        try:
            code = _item(name, bound, alias, attached, graded)
        except (RecursionError, MemoryError, ValueError):  # a pathological submission
            continue
        if code is not None:
            found[name] = code
    return found


def _resolve(name: str, bound: Mapping[str, _Bound], alias: Mapping[str, str]) -> _Bound | None:
    for _ in range(len(alias) + 1):  # ``a = b; b = a`` binds nothing
        if name in bound:
            return bound[name]
        if name not in alias:
            return None
        name = alias[name]
    return None


def _item(name: str, bound: Mapping[str, _Bound], alias: Mapping[str, str],
          attached: Mapping[str, list[str]], graded: set[str]) -> ItemCode | None:
    first = _resolve(name, bound, alias)
    if first is None:
        return None
    reached: dict[int, tuple[_Bound, Tokens]] = {}
    calls: set[str] = set()
    queue = [first]
    while queue and len(reached) < _REACHED:
        here = queue.pop()
        if id(here.node) in reached:
            continue
        part = statement_tokens(here.node, here.node.lineno)
        reached[id(here.node)] = (here, part)
        referred = set(part.reads)
        for key in {getattr(here.node, "name", ""), *([name] if here is first else [])}:
            referred.update(attached.get(key, []))
        for other in referred - {name}:
            helper = _resolve(other, bound, alias)
            if helper is None:
                continue
            if other in graded:
                calls.add(other)
            elif id(helper.node) not in reached:
                queue.append(helper)
    # The item's definition, then its helpers in the order of their normalised tokens (not by
    # name, nor by where they are: both are the student's own).
    own = reached.pop(id(first.node))
    order = [own, *sorted(reached.values(), key=lambda r: zlib.crc32("\x00".join(r[1].texts).encode()))]
    texts: list[str] = []
    lines: list[int] = []
    sources: list[str] = []
    offset = 0
    for bound_to, part in order:
        node = bound_to.node
        texts += part.texts
        lines += [line - node.lineno + 1 + offset for line in part.lines]
        text = "\n".join(bound_to.lines[node.lineno - 1:node.end_lineno])
        sources.append(text)
        offset += text.count("\n") + 3  # two blank lines between definitions
    return ItemCode(name, "\n\n\n".join(sources), first.where, _prints(texts, lines), frozenset(calls),
                    stub(first.node))


def top_level(cells: Iterable[Cell]) -> frozenset[int]:
    """The fingerprints of the code of ``cells`` that is not in a definition, read as one
    block (a tutorial written as a script)."""
    body: list[ast.stmt] = []
    for cell in within(cells)[0]:
        tree = _parse(cell.source)
        if tree is not None:
            body += [node for node in tree.body if not isinstance(node, (*DEFINITIONS, ast.Import, ast.ImportFrom))]
    if not body:
        return frozenset()
    try:
        out = statement_tokens(ast.Module(body, []), 1)
    except (RecursionError, MemoryError, ValueError):
        return frozenset()
    return frozenset(h for h, _, _ in _prints(out.texts, out.lines))


def stub(node: ast.stmt) -> bool:
    """Whether a definition is a stub, as the release gives it or as a student leaves it: every
    function in it (one at least) does nothing but ``pass``, ``...``, raise or return nothing (a
    docstring and ``super().__init__()`` aside)."""
    functions = [node] if isinstance(node, FUNCTIONS) else [
        n for n in ast.walk(node) if isinstance(n, FUNCTIONS)]
    # A class without methods may have them attached later (``Cls.forward = _forward``).
    return bool(functions) and all(all(_idle(s) for s in without_docstring(f.body)) for f in functions)


def _idle(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Pass, ast.Raise)):
        return True
    if isinstance(stmt, ast.Return):
        return stmt.value is None or isinstance(stmt.value, ast.Constant) and stmt.value.value is None
    if not isinstance(stmt, ast.Expr):
        return False
    value = stmt.value
    return isinstance(value, ast.Constant) and value.value is Ellipsis or isinstance(value, ast.Call) \
        and isinstance(value.func, ast.Attribute) and value.func.attr == "__init__"


def _parse(source: str) -> ast.Module | None:
    for text in (source, None):
        try:
            return ast.parse(rewrite_lines(source) if text is None else text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None
