"""The code a student wrote for each item, normalised and fingerprinted.

The normalisation works on Python's own syntax tree (``ast``) and tokens (``tokenize``), so
that what does not change the program does not change the fingerprints: comments, docstrings,
layout and strings are gone, every variable, argument and helper is called ``v`` (library
attributes such as ``exp`` or ``W_q`` stay: they carry the method), and ``np.matmul(a, b)``,
``a.dot(b)`` or ``torch.bmm(a, b)`` read as ``a @ b``. Each item is fingerprinted on its own,
so reordering functions changes nothing either.

Fingerprints are winnowed hashes of token ``K``-grams (Schleimer, Wilkerson and Aiken 2003, the
method of MOSS and copydetect): every run of ``K + W - 1`` tokens two programs share gives
both at least one common fingerprint. Each fingerprint keeps the lines of the student's own
code it covers, for the page to mark.
"""

from __future__ import annotations

import ast
import copy
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..submissions.load import Cell, transform_ipython

K = 5  # tokens per k-gram
W = 4  # k-grams per window
_MATMUL = {"matmul", "dot", "mm", "bmm"}
_BODIES = ("body", "orelse", "finalbody", "handlers")
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
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and (wanted is None or node.name in wanted):
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
            return ast.parse(transform_ipython(source) if text is None else text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def fingerprint(definition: ast.stmt) -> tuple[Print, ...]:
    """The winnowed fingerprints of one definition, lines counted from its first line. The
    definition is normalised in place (a tree parsed for this alone: a copy would cost more than
    the rest)."""
    first = definition.lineno
    tree = _Normalise().visit(definition)
    tokens: list[tuple[str, int, int]] = []
    for piece, start, end in _pieces(tree):
        tokens += [(text, start - first + 1, end - first + 1) for text in _tokens(ast.unparse(piece))]
    texts = [text for text, _, _ in tokens]
    ends = [end for _, _, end in tokens]
    hashes = [_hash(" ".join(texts[i:i + K])) for i in range(len(tokens) - K + 1)]
    return tuple((hashes[j], tokens[j][1], max(ends[j:j + K])) for j in winnow(hashes))


def winnow(hashes: Sequence[int], window: int = W) -> list[int]:
    """The positions winnowing keeps: the rightmost smallest hash of every window, in order
    (with the rightmost minimum, a later window never picks an earlier position)."""
    picked: list[int] = []
    for start in range(max(1, len(hashes) - window + 1)):
        chunk = hashes[start:start + window]
        if chunk:
            at = start + len(chunk) - 1 - chunk[::-1].index(min(chunk))
            if not picked or picked[-1] != at:
                picked.append(at)
    return picked


def _hash(text: str) -> int:
    # Two 32-bit checksums in one 64-bit number: as good as a digest against chance collisions
    # here, stable across processes (unlike ``hash``), and several times faster than blake2b.
    data = text.encode()
    return zlib.crc32(data) << 32 | zlib.adler32(data)


# ``ast.unparse`` writes one layout for every program: its tokens are words, numbers, quoted
# strings (all "'S'" here) and operators, which a pattern splits far faster than ``tokenize``.
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+\.?\d*(?:[eE][-+]?\d+)?j?|\.\d+|'S'|\*\*=?|//=?|>>=?|<<=?|->|:="
                    r"|[-+*/%@&|^<>=!]=|\S")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _pieces(node: ast.AST) -> list[tuple[ast.AST, int, int]]:
    """``node`` as simple statements and compound statements' headers, each with its lines."""
    children = [(field, stmts) for field in _BODIES if isinstance(stmts := getattr(node, field, None), list) and stmts]
    if not children:
        return [(node, node.lineno, node.end_lineno or node.lineno)]  # type: ignore[attr-defined]
    head = copy.copy(node)
    for field, _ in children:
        setattr(head, field, [])
    head.body = [ast.Pass()]  # type: ignore[attr-defined]
    first_child = min(stmts[0].lineno for _, stmts in children)
    out = [(head, node.lineno, max(node.lineno, first_child - 1))]  # type: ignore[attr-defined]
    for _, stmts in children:
        for stmt in stmts:
            out += _pieces(stmt)
    return out


class _Normalise(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name("v", node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg, node.annotation = "v", None
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.copy_location(ast.Constant("S"), node) if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return ast.copy_location(ast.Constant("S"), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _MATMUL and not node.keywords:
            if len(node.args) == 2:  # np.matmul(a, b)
                return ast.copy_location(ast.BinOp(node.args[0], ast.MatMult(), node.args[1]), node)
            if len(node.args) == 1:
                return ast.copy_location(ast.BinOp(func.value, ast.MatMult(), node.args[0]), node)  # a.dot(b)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self._definition(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return self._definition(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return self._definition(node)

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> ast.AST:
        node.name = "v"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:] or [ast.copy_location(ast.Pass(), body[0])]
        node.body = body
        self.generic_visit(node)
        return node


_SOLUTION = re.compile(r"^[ \t]*### BEGIN SOLUTION.*?^[ \t]*### END SOLUTION[^\n]*$", re.M | re.S)


def starter(source: str) -> str:
    """A source notebook's cell as the release gives it: each solution replaced by the stub."""
    return _SOLUTION.sub(lambda m: m.group(0)[:len(m.group(0)) - len(m.group(0).lstrip())]
                         + "raise NotImplementedError()", source)
