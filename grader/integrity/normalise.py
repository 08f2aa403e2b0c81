"""An item's code normalised into tokens, which ``fingerprints`` winnows.

The normalisation works on Python's own syntax tree (``ast``): the tokens are the tree's nodes
in the order they are written, so that what does not change the program does not change the
fingerprints: comments, docstrings, annotations, layout and strings are gone, every variable,
argument and helper is called ``v`` (library attributes such as ``.exp`` or ``.W_q`` and keyword
names stay: they carry the method), and ``np.matmul(a, b)``, ``a.dot(b)`` or ``torch.bmm(a, b)``
read as ``a @ b``. Each item is fingerprinted on its own, so reordering functions changes
nothing either. (Walking the tree once is about three times cheaper than writing it back as text
and splitting that, which matters: a run's workers read every student's code for the report,
beside grading it.)
"""

from __future__ import annotations

import ast
import heapq
import zlib
from collections import Counter
from dataclasses import dataclass, field

_MATMUL = {"matmul", "dot", "mm", "bmm"}
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BARRIERS = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Try, ast.While)
_LIBRARIES = frozenset({"np", "numpy", "torch", "nn", "F", "math"})
_ROUNDS = 8  # of dropping dead statements: a chain of dead statements longer than this is kept in part
_ORDERED = 200  # statements in a block, up to which their order is made canonical (pairs compared: quadratic)
# Fields that do not change what a program computes, or that name its own variables.
_SKIPPED = frozenset({"ctx", "annotation", "returns", "type_comment", "type_params", "name", "asname",
                      "names", "id", "arg", "kind", "level", "conversion", "is_async"})


@dataclass
class Tokens:
    """Tokens as they are written out, with the names the code they come from reads and writes."""

    texts: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    barrier: bool = False  # ``return``, ``raise``, ``yield`` ...: nothing moves across it

    def add(self, text: str, line: int) -> None:
        self.texts.append(text)
        self.lines.append(line)

    def extend(self, other: Tokens) -> None:
        self.texts += other.texts
        self.lines += other.lines
        self.reads |= other.reads
        self.writes |= other.writes
        self.barrier |= other.barrier


def tokens(definition: ast.AST) -> tuple[list[str], list[int]]:
    """The normalised tokens of ``definition``, and the line of each: in the order they are
    written, but for the statements that change nothing (``live``) and the order of
    independent statements (``canonical``)."""
    out = statement_tokens(definition, getattr(definition, "lineno", 1))
    return out.texts, out.lines


def statement_tokens(stmt: ast.AST, line: int) -> Tokens:
    out = Tokens()
    _walk(stmt, line, out)
    return out


def _walk(node: ast.AST, line: int, out: Tokens) -> None:
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
                if name == "body" and isinstance(node, DEFINITIONS):
                    value = without_docstring(value)
                if value and isinstance(value[0], ast.stmt):
                    parts = [(child, statement_tokens(child, line)) for child in value]
                    if name == "body" and isinstance(node, FUNCTIONS):
                        parts = live(parts)
                    for part in canonical([part for _, part in parts]):
                        out.extend(part)
                else:
                    for child in value:
                        if isinstance(child, ast.AST):
                            _walk(child, line, out)
            elif isinstance(value, ast.AST):
                _walk(value, line, out)


def _changes(node: ast.AST, out: Tokens) -> None:
    """``x.append(y)``, ``x[i] = y``, ``self.w = y``: x changes (a library's calls change nothing)."""
    root = node
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if isinstance(root, ast.Name) and root.id not in _LIBRARIES:
        out.writes.add(root.id)


def live(body: list[tuple[ast.stmt, Tokens]]) -> list[tuple[ast.stmt, Tokens]]:
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


def _dead(stmt: ast.stmt, part: Tokens, readers: Counter[str]) -> bool:
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


def canonical(body: list[Tokens]) -> list[Tokens]:
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


def without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]
    return body
