"""The code a student wrote for each item, normalised and fingerprinted.

The normalisation works on Python's own syntax tree (``ast``): the tokens are the tree's nodes
in the order they are written, so that what does not change the program does not change the
fingerprints: comments, docstrings, annotations, layout and strings are gone, every variable,
argument and helper is called ``v`` (library attributes such as ``.exp`` or ``.W_q`` and keyword
names stay: they carry the method), and ``np.matmul(a, b)``, ``a.dot(b)`` or ``torch.bmm(a, b)``
read as ``a @ b``. Each item is fingerprinted on its own, so reordering functions changes
nothing either. (Walking the tree once is about three times cheaper than writing it back as text
and splitting that, which matters: a run's workers read every student's code for the report,
beside grading it.)

Fingerprints are winnowed hashes of token ``K``-grams (Schleimer, Wilkerson and Aiken 2003, the
method of MOSS and copydetect): every run of ``K + W - 1`` tokens two programs share gives
both at least one common fingerprint. Each fingerprint keeps the lines of the student's own
code it covers, for the page to mark.
"""

from __future__ import annotations

import ast
import heapq
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..records.code import ItemCode
from ..submissions.ipython import rewrite_lines
from ..submissions.load import Cell
from .cells import within
from .winnowing import prints as _prints

_MATMUL = {"matmul", "dot", "mm", "bmm"}
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Fields that do not change what a program computes, or that name its own variables.
_SKIPPED = frozenset({"ctx", "annotation", "returns", "type_comment", "type_params", "name", "asname",
                      "names", "id", "arg", "kind", "level", "conversion", "is_async"})


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
            if isinstance(node, _DEFINITIONS):
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
    reached: dict[int, tuple[_Bound, _Tokens]] = {}
    calls: set[str] = set()
    queue = [first]
    while queue and len(reached) < _REACHED:
        here = queue.pop()
        if id(here.node) in reached:
            continue
        part = _statement(here.node, here.node.lineno)
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
            body += [node for node in tree.body if not isinstance(node, (*_DEFINITIONS, ast.Import, ast.ImportFrom))]
    if not body:
        return frozenset()
    try:
        out = _statement(ast.Module(body, []), 1)
    except (RecursionError, MemoryError, ValueError):
        return frozenset()
    return frozenset(h for h, _, _ in _prints(out.texts, out.lines))


def stub(node: ast.stmt) -> bool:
    """Whether a definition is a stub, as the release gives it or as a student leaves it: every
    function in it (one at least) does nothing but ``pass``, ``...``, raise or return nothing (a
    docstring and ``super().__init__()`` aside)."""
    functions = [node] if isinstance(node, _FUNCTIONS) else [
        n for n in ast.walk(node) if isinstance(n, _FUNCTIONS)]
    # A class without methods may have them attached later (``Cls.forward = _forward``).
    return bool(functions) and all(all(_idle(s) for s in _without_docstring(f.body)) for f in functions)


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


@dataclass
class _Tokens:
    """Tokens as they are written out, with the names the code they come from reads and writes."""

    texts: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    barrier: bool = False  # ``return``, ``raise``, ``yield`` ...: nothing moves across it

    def add(self, text: str, line: int) -> None:
        self.texts.append(text)
        self.lines.append(line)

    def extend(self, other: _Tokens) -> None:
        self.texts += other.texts
        self.lines += other.lines
        self.reads |= other.reads
        self.writes |= other.writes
        self.barrier |= other.barrier


def tokens(definition: ast.AST) -> tuple[list[str], list[int]]:
    """The normalised tokens of ``definition``, and the line of each: in the order they are
    written, but for the statements that change nothing (``live``) and the order of
    independent statements (``canonical``)."""
    out = _statement(definition, getattr(definition, "lineno", 1))
    return out.texts, out.lines


def _walk(node: ast.AST, line: int, out: _Tokens) -> None:
    kind = type(node)
    line = getattr(node, "lineno", line)
    if kind is ast.Name:
        out.add("v", line)
        (out.writes if isinstance(node.ctx, (ast.Store, ast.Del)) else out.reads).add(node.id)  # type: ignore[attr-defined]
    elif kind is ast.arg:
        out.add("v", line)
    elif kind is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        out.add("S" if isinstance(value, (str, bytes)) else repr(value), line)
    elif kind is ast.JoinedStr:
        out.add("S", line)
    elif kind is ast.Attribute:
        if isinstance(node.ctx, (ast.Store, ast.Del)):  # type: ignore[attr-defined]
            _changes(node, out)
        _walk(node.value, line, out)  # type: ignore[attr-defined]
        out.add("." + node.attr, line)  # type: ignore[attr-defined]
    elif kind is ast.keyword:
        out.add(f"{node.arg}=", line)  # type: ignore[attr-defined]
        _walk(node.value, line, out)  # type: ignore[attr-defined]
    elif isinstance(node, ast.Call) and (operands := _matmul(node)) is not None:
        out.add("BinOp", line)
        _walk(operands[0], line, out)
        out.add("MatMult", line)
        _walk(operands[1], line, out)
    else:
        out.add(kind.__name__, line)
        if isinstance(node, _BARRIERS) or kind in (ast.Yield, ast.YieldFrom, ast.Await):
            out.barrier = True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                or isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            _changes(node, out)
        for name in node._fields:
            if name in _SKIPPED:
                continue
            value = getattr(node, name, None)
            if isinstance(value, list):
                if name == "body" and isinstance(node, _DEFINITIONS):
                    value = _without_docstring(value)
                if value and isinstance(value[0], ast.stmt):
                    parts = [(child, _statement(child, line)) for child in value]
                    if name == "body" and isinstance(node, _FUNCTIONS):
                        parts = live(parts)
                    for part in canonical([part for _, part in parts]):
                        out.extend(part)
                else:
                    for child in value:
                        if isinstance(child, ast.AST):
                            _walk(child, line, out)
            elif isinstance(value, ast.AST):
                _walk(value, line, out)


def _statement(stmt: ast.AST, line: int) -> _Tokens:
    out = _Tokens()
    _walk(stmt, line, out)
    return out


def _changes(node: ast.AST, out: _Tokens) -> None:
    """``x.append(y)``, ``x[i] = y``, ``self.w = y``: x changes (a library's calls change nothing)."""
    root = node
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if isinstance(root, ast.Name) and root.id not in _LIBRARIES:
        out.writes.add(root.id)


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BARRIERS = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Try, ast.While)
_LIBRARIES = frozenset({"np", "numpy", "torch", "nn", "F", "math"})
_REACHED = 64  # definitions an item reaches, at most (a student's helpers are a few)
_ROUNDS = 8  # of dropping dead statements: a chain of dead statements longer than this is kept in part
_ORDERED = 200  # statements in a block, up to which their order is made canonical (pairs compared: quadratic)


def live(body: list[tuple[ast.stmt, _Tokens]]) -> list[tuple[ast.stmt, _Tokens]]:
    """A function's statements without the dead ones: assignments to names no other statement
    reads, and expressions that compute nothing (a name, a constant, an attribute), a few
    rounds over (a statement read only by a dead one is dead too). A function of dead
    statements only is kept as written."""
    kept = list(body)
    readers = Counter(name for _, part in kept for name in part.reads)
    for _ in range(_ROUNDS):
        dead = [k for k, (stmt, part) in enumerate(kept) if _dead(stmt, part, readers)]
        if not dead or len(dead) == len(kept):
            break
        for k in dead:
            readers.subtract(kept[k][1].reads)
        gone = set(dead)
        kept = [pair for k, pair in enumerate(kept) if k not in gone]
    return kept


def _dead(stmt: ast.stmt, part: _Tokens, readers: Counter[str]) -> bool:
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, (ast.Name, ast.Constant, ast.Attribute))
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
    # Only names bound, none read elsewhere, and nothing else changed (``x.append``: x changes).
    bound = {n.id for n in names if isinstance(n, ast.Name)}
    return len(bound) == len(names) and part.writes == bound \
        and not any(readers[name] - (name in part.reads) > 0 for name in bound)


def canonical(body: list[_Tokens]) -> list[_Tokens]:
    """The statements of a block in a canonical order: a statement waits for those it depends on
    (it reads what they write, or writes what they read or write), and of the statements ready,
    the one whose normalised tokens hash smallest comes first. Two orders of the same
    independent statements give one; the dependencies are read from names alone, which is
    enough for fingerprints."""
    if not 2 <= len(body) <= _ORDERED:
        return body
    after: list[list[int]] = [[] for _ in body]
    waiting = [0] * len(body)
    for j, later in enumerate(body):
        for i in range(j):
            first = body[i]
            if first.barrier or later.barrier or first.writes & (later.reads | later.writes) \
                    or later.writes & first.reads:
                after[i].append(j)
                waiting[j] += 1
    keys = [zlib.crc32("\x00".join(part.texts).encode()) for part in body]
    ready = [(keys[i], i) for i in range(len(body)) if not waiting[i]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(body[i])
        for j in after[i]:
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, (keys[j], j))
    return order


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
