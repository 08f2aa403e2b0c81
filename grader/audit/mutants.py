"""Automatic mutants: the reference module with one operator or constant changed in one
graded function or class (``auto_mutants``). A survivor hints at a weak check."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AutoMutant:
    """The reference module of ``notebook`` with one operator or constant changed."""

    notebook: str
    item: str  # the public (graded) function or class the change is in
    function: str  # the innermost function: "relu", "Model.forward"
    line: int  # 1-based line of the change in the reference module
    col: int  # 0-based column (characters)
    kind: str  # binop, compare, boolop, constant, name, swap_args, drop_keyword, drop_unary
    mutation: str  # what changed, e.g. "`-` -> `+`"
    original: str  # the reference's source segment that changed
    replacement: str  # what replaced it
    source: str  # the whole mutated module

    @property
    def name(self) -> str:
        return f"{self.notebook}:{self.line}:{self.col}:{self.kind}"



_BINOPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div, ast.MatMult: ast.Mult, ast.Pow: ast.Mult,
}
_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
}
_BOOLOPS: dict[type[ast.boolop], type[ast.boolop]] = {ast.And: ast.Or, ast.Or: ast.And}
_NAMES = {"sin": "cos", "cos": "sin", "max": "min", "min": "max", "sum": "mean", "amax": "amin"}
_STRINGS = {"-inf": "inf", "inf": "-inf"}
_OP_TEXT: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.MatMult: "@",
    ast.Pow: "**", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
    ast.NotEq: "!=", ast.And: "and", ast.Or: "or", ast.Invert: "~", ast.Not: "not", ast.USub: "-",
}


def _int_change(value: int) -> int:
    """0 -> 1, 1 -> 2, 2 -> 1, n -> n + 1 (axis and index slips)."""
    return {0: 1, 1: 2, 2: 1}.get(value, value + 1)


def _negative_change(value: int) -> int:
    """The magnitude of a negative constant: -1 -> -2, -2 -> -1, -n -> -(n - 1)."""
    return {1: 2, 2: 1}.get(value, value - 1)


def _float_change(value: float) -> float:
    return {0.0: 1.0, 1.0: 2.0, 2.0: 1.0}.get(value, value / 10)


# Applies a mutation to a node of a fresh copy of the tree (given a function that replaces a
# node in that copy); returns the node whose source text changes.
_Apply = Callable[[ast.AST, Callable[[ast.AST, ast.AST], None]], ast.AST]


@dataclass
class _Site:
    """A mutation of the node at ``index`` (``ast.walk`` order) of a fresh copy of the tree."""

    index: int
    node: ast.AST  # in the original tree: where the change is
    kind: str
    mutation: str
    apply: _Apply
    item: str = ""
    function: str = ""


def auto_mutants(source: str, notebook: str, names: Sequence[str] | None = None) -> list[AutoMutant]:
    """Every single mutation of the public functions and classes of a reference module.

    ``names``: the names to mutate (the audit passes the notebook's graded items; default:
    every top-level function and class whose name does not start with ``_``).
    Each mutant is the whole module with one source segment replaced; it is checked to parse
    to exactly the mutated tree, so its line numbers are the reference's.
    """
    tree = ast.parse(source)
    public = set(names) if names is not None else _public_names(tree)
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    mutants: list[AutoMutant] = []
    seen: set[str] = {source}
    for position, top in enumerate(tree.body):
        if not isinstance(top, (ast.FunctionDef, ast.ClassDef)) or top.name not in public:
            continue
        walk_index = {id(node): k for k, node in enumerate(ast.walk(top))}
        for site in _sites(top, walk_index):
            mutant = _build(source, top, position, lines, offsets, site, notebook)
            if mutant is not None and mutant.source not in seen:
                seen.add(mutant.source)
                mutants.append(mutant)
    return mutants


def _public_names(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")}


def _sites(top: ast.FunctionDef | ast.ClassDef, walk_index: dict[int, int]) -> Iterator[_Site]:
    skip: set[int] = set()  # docstrings, f-strings, constants handled with their minus sign

    def visit(node: ast.AST, qualname: str) -> Iterator[_Site]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qualname = f"{qualname}.{node.name}" if qualname else node.name
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                skip.add(id(body[0].value))
        if isinstance(node, ast.JoinedStr):
            return
        if id(node) not in skip:
            for site in _node_sites(node, walk_index[id(node)], skip):
                site.item, site.function = top.name, qualname
                yield site
        for child in ast.iter_child_nodes(node):
            yield from visit(child, qualname)

    yield from visit(top, "")


def _in_place(change: Callable[[Any], None]) -> _Apply:
    def apply(node: ast.AST, replace: Callable[[ast.AST, ast.AST], None]) -> ast.AST:
        change(node)
        return node

    return apply


def _setting(attr: str, value: Any, child: str | None = None) -> _Apply:
    """Set ``attr`` of the node (or of its field ``child``) to ``value``."""

    def change(node: Any) -> None:
        setattr(getattr(node, child) if child else node, attr, value)

    return _in_place(change)


def _node_sites(node: ast.AST, index: int, skip: set[int]) -> Iterator[_Site]:
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        new_op = _BINOPS[type(node.op)]
        yield _Site(index, node, "binop", f"`{_OP_TEXT[type(node.op)]}` -> `{_OP_TEXT[new_op]}`",
                    _setting("op", new_op()))
    elif isinstance(node, ast.Compare):
        for k, cmp in enumerate(node.ops):
            if type(cmp) in _COMPARE:
                new_cmp = _COMPARE[type(cmp)]

                def flip(n: Any, k: int = k, new: type[ast.cmpop] = new_cmp) -> None:
                    n.ops[k] = new()

                yield _Site(index, node, "compare", f"`{_OP_TEXT[type(cmp)]}` -> `{_OP_TEXT[new_cmp]}`",
                            _in_place(flip))
    elif isinstance(node, ast.BoolOp):
        new_bool = _BOOLOPS[type(node.op)]
        yield _Site(index, node, "boolop", f"`{_OP_TEXT[type(node.op)]}` -> `{_OP_TEXT[new_bool]}`",
                    _setting("op", new_bool()))
    elif isinstance(node, ast.UnaryOp):
        operand = node.operand
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
            skip.add(id(operand))
            old = operand.value
            assert isinstance(old, (int, float))
            new = _negative_change(old) if isinstance(old, int) else _float_change(old)
            yield _Site(index, node, "constant", f"`-{old!r}` -> `-{new!r}`", _setting("value", new, "operand"))
        elif isinstance(node.op, (ast.Invert, ast.Not, ast.USub)):
            def drop(n: ast.AST, replace: Callable[[ast.AST, ast.AST], None]) -> ast.AST:
                assert isinstance(n, ast.UnaryOp)
                replace(n, n.operand)
                return n.operand

            yield _Site(index, node, "drop_unary", f"drop `{_OP_TEXT[type(node.op)]}`", drop)
    elif isinstance(node, ast.Constant):
        value = node.value
        new_value: Any = None
        if isinstance(value, bool):
            new_value = not value
        elif isinstance(value, int):
            new_value = _int_change(value)
        elif isinstance(value, float):
            new_value = _float_change(value)
        elif isinstance(value, str) and value in _STRINGS:
            new_value = _STRINGS[value]
        if new_value is not None:
            yield _Site(index, node, "constant", f"`{value!r}` -> `{new_value!r}`",
                        _setting("value", new_value))
    elif isinstance(node, ast.Attribute) and node.attr in _NAMES:
        yield _Site(index, node, "name", f"`.{node.attr}` -> `.{_NAMES[node.attr]}`",
                    _setting("attr", _NAMES[node.attr]))
    elif isinstance(node, ast.Name) and node.id in _NAMES:
        yield _Site(index, node, "name", f"`{node.id}` -> `{_NAMES[node.id]}`",
                    _setting("id", _NAMES[node.id]))
    if isinstance(node, ast.Call):
        args = node.args
        if len(args) >= 2 and not any(isinstance(a, ast.Starred) for a in args[-2:]):
            a, b = ast.unparse(args[-2]), ast.unparse(args[-1])
            if a != b:
                def swap(n: Any) -> None:
                    n.args[-2], n.args[-1] = n.args[-1], n.args[-2]

                yield _Site(index, node, "swap_args", f"swap arguments `{a}` and `{b}` of `{ast.unparse(node.func)}`",
                            _in_place(swap))
        for k, keyword in enumerate(node.keywords):
            if keyword.arg is None:
                continue

            def drop_keyword(n: Any, k: int = k) -> None:
                del n.keywords[k]

            yield _Site(index, node, "drop_keyword", f"drop `{keyword.arg}={ast.unparse(keyword.value)}`",
                        _in_place(drop_keyword))


def _replacer(tree: ast.AST) -> Callable[[ast.AST, ast.AST], None]:
    def replace(old: ast.AST, new: ast.AST) -> None:
        for parent in ast.walk(tree):
            for name, value in ast.iter_fields(parent):
                if value is old:
                    setattr(parent, name, new)
                    return
                if isinstance(value, list):
                    for k, v in enumerate(value):
                        if v is old:
                            value[k] = new
                            return
        raise LookupError("node not found")

    return replace


def _char_offset(lines: list[str], offsets: list[int], lineno: int, col_bytes: int) -> int:
    """ast's (line, UTF-8 byte column) as an offset into the source string."""
    line = lines[lineno - 1]
    return offsets[lineno - 1] + len(line.encode("utf-8")[:col_bytes].decode("utf-8"))


def _build(source: str, top: ast.FunctionDef | ast.ClassDef, position: int, lines: list[str],
           offsets: list[int], site: _Site, notebook: str) -> AutoMutant | None:
    """The module with ``site`` applied to the definition ``top`` (``tree.body[position]``), or
    None when the text cannot be made to parse to exactly the mutated definition."""
    node = site.node
    end_lineno, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_lineno is None or end_col is None:
        return None
    start = _char_offset(lines, offsets, node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = _char_offset(lines, offsets, end_lineno, end_col)
    mutated_top = copy.deepcopy(top)
    wrapper = ast.Module(body=[mutated_top], type_ignores=[])  # so that the definition itself has a parent
    target = next(n for k, n in enumerate(ast.walk(mutated_top)) if k == site.index)
    new_node = site.apply(target, _replacer(wrapper))
    expected = ast.dump(wrapper.body[0])
    if expected == ast.dump(top):
        return None
    text = ast.unparse(new_node)
    for candidate in (text, f"({text})"):
        mutated = source[:start] + candidate + source[end:]
        try:
            if ast.dump(ast.parse(mutated).body[position]) == expected:
                break
        except SyntaxError:
            continue
    else:
        return None
    col = len(lines[node.lineno - 1].encode("utf-8")[:node.col_offset].decode("utf-8"))  # type: ignore[attr-defined]
    return AutoMutant(notebook, top.name, site.function, node.lineno, col, site.kind,  # type: ignore[attr-defined]
                      site.mutation, source[start:end], candidate, mutated)
