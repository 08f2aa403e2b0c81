"""A class with planted copies among independent students, for the integrity report.

Every student hands in ``attention_numpy.py`` and ``attention_torch.py``: the reference with,
for each item, one of

- ``canonical``: the reference's own definition (what a correct student converges to);
- ``public``: a catalogue alternative (a port of a public tutorial) or mutant (a classic bug);
- ``own``: code of the student's own: the reference rewritten step by step in a style of the
  student's own (nested calls taken out into temporaries, operands in an order of their own,
  ``sqrt`` as a power) with, for some, an unusual bug of their own (the result scaled by a
  constant no one else picks).

and every student's files are disguised their own way (local names renamed, the layout
reformatted, comments added, definitions reordered, ``a @ b`` and ``np.matmul(a, b)``
swapped), as a copier would disguise them. Planted pairs (a copier of a source):

- ``whole``: the source's whole submission, disguised anew;
- ``partial``: 2 or 3 of the source's own items, the rest the copier's own work;
- ``bug``: 3 of the source's items, one of them its unusual bug.

Independent students share public ports, classic bugs and styles, never a copy.

    python benchmarks/integrity_class.py OUT_DIR --students 60 --seed 1

writes the class into ``OUT_DIR`` and ``OUT_DIR.planted.csv`` (the planted pairs).
"""

from __future__ import annotations

import argparse
import ast
import copy
import csv
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / "assignments" / "attention"
NOTEBOOKS = ("attention_numpy", "attention_torch")
_ITEM = re.compile(r"^# item: (\w+)", re.M)
_KEEP = {"np", "torch", "nn", "F", "math", "self", "super", "range", "len", "float", "int", "bool", "list", "tuple",
         "ValueError", "isinstance", "zip", "enumerate", "sum", "max", "min", "abs", "print", "dict", "_Base", "type",
         "NotImplementedError", "round", "reversed", "sorted", "any", "all", "map", "str"}
WORDS = ("alpha", "beta", "tmp", "val", "res", "out", "acc", "buf", "mat", "vec", "arr", "part", "num", "den", "core")


def reference(notebook: str) -> str:
    return (ROOT / "reference" / f"{notebook}.py").read_text(encoding="utf-8")


def items_of_notebooks() -> dict[str, str]:
    """item -> notebook: the top-level definitions of each reference module."""
    found = {}
    for notebook in NOTEBOOKS:
        for node in ast.parse(reference(notebook)).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                found[node.name] = notebook
    return found


ITEMS = items_of_notebooks()


def fragments(folder: Path) -> dict[str, list[str]]:
    """item -> the fragments (``# item: NAME`` files) of ``folder``."""
    pool: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        match = _ITEM.search(text)
        if match and match.group(1) in ITEMS:
            pool.setdefault(match.group(1), []).append(text)
    return pool


PUBLIC = {item: fragments(BUNDLE / "catalogue" / "alternatives").get(item, [])
          + fragments(BUNDLE / "catalogue" / "mutants").get(item, []) for item in ITEMS}


def reference_definition(item: str) -> ast.FunctionDef | ast.ClassDef:
    for node in ast.parse(reference(ITEMS[item])).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == item:
            return node
    raise KeyError(item)


class _Style(ast.NodeTransformer):
    """The reference in a style of its own: operands of commutative operators in an order of
    its own, ``sqrt`` written as a power, temporaries before each return; an unusual bug."""

    def __init__(self, rng: random.Random, temporaries: bool, scale: float | None):
        self.rng, self.temporaries, self.scale = rng, temporaries, scale

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr)) and self.rng.random() < 0.5:
            node.left, node.right = node.right, node.left
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "sqrt" and len(node.args) == 1 \
                and isinstance(func.value, ast.Name) and func.value.id in ("np", "math") and self.rng.random() < 0.5:
            return ast.BinOp(node.args[0], ast.Pow(), ast.Constant(0.5))
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if node.name == "__init__":
            return node
        self.generic_visit(node)
        body: list[ast.stmt] = []
        for stmt in self._hoisted(self._notes(node)):
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                value = stmt.value
                if self.scale is not None:
                    first = value.elts[0] if isinstance(value, ast.Tuple) else value
                    scaled = ast.BinOp(first, ast.Mult(), ast.Constant(self.scale))
                    value = ast.Tuple([scaled, *value.elts[1:]], ast.Load()) if isinstance(value, ast.Tuple) else scaled
                if self.temporaries:
                    body.append(ast.Assign([ast.Name("answer", ast.Store())], value, lineno=0))
                    value = ast.Name("answer", ast.Load())
                stmt = ast.Return(value)
            body.append(stmt)
        node.body = body
        return node


    def _notes(self, node: ast.FunctionDef) -> list[ast.stmt]:
        """The body with a few lines of the student's own that change nothing it returns (a
        parameter checked or rebound their own way), each at a place of its own."""
        params = [a.arg for a in node.args.args if a.arg != "self"]
        body = list(node.body)
        docstring = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
        for _ in range(self.rng.randint(1, 3) if params else 0):
            param = self.rng.choice(params)
            note = self.rng.choice(_NOTES).format(p=param, n=self.rng.randrange(100))
            body.insert(self.rng.randint(docstring, len(body) - 1), ast.parse(note).body[0])
        return body

    def _hoisted(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """Some calls nested in an assignment or a return taken out into a temporary first, as a
        student who writes one step per line does (never out of a lambda, a comprehension or a
        conditional expression, which would change when they run)."""
        out: list[ast.stmt] = []
        for stmt in body:
            if isinstance(stmt, (ast.Assign, ast.Return)) and stmt.value is not None:
                for call in _nested_calls(stmt.value):
                    if self.rng.random() < 0.5:
                        name = f"step{len(out)}_{self.rng.randrange(1000)}"
                        out.append(ast.Assign([ast.Name(name, ast.Store())], copy.deepcopy(call.node), lineno=0))
                        setattr(call.parent, call.field, ast.Name(name, ast.Load())) if call.index is None \
                            else getattr(call.parent, call.field).__setitem__(call.index, ast.Name(name, ast.Load()))
            out.append(stmt)
        return out


# Each reads and rebinds a parameter, so it is live (the report drops statements that change
# nothing the function returns), and holds a number of the student's own.
_NOTES = ("{p} = {p} if {n} else {p}", "{p} = [{p}, {n}][0]", "{p}, seen_{n} = {p}, {n}",
          "{p} = {p} if {p} is not None or {n} else {p}", "{p} = ({p}, {n})[0]")


@dataclass(frozen=True)
class _Place:
    node: ast.Call
    parent: ast.AST
    field: str
    index: int | None


def _nested_calls(value: ast.AST) -> list[_Place]:
    """The calls inside ``value`` (not ``value`` itself), innermost last, that run unconditionally."""
    found: list[_Place] = []

    def walk(node: ast.AST) -> None:
        for name, child in ast.iter_fields(node):
            children = child if isinstance(child, list) else [child]
            for index, sub in enumerate(children):
                if not isinstance(sub, ast.AST) or isinstance(sub, (ast.Lambda, ast.ListComp, ast.GeneratorExp,
                                                                    ast.DictComp, ast.SetComp, ast.IfExp, ast.BoolOp)):
                    continue
                if isinstance(sub, ast.Call):
                    found.append(_Place(sub, node, name, index if isinstance(child, list) else None))
                walk(sub)

    walk(value)
    return found


def styled(item: str, rng: random.Random, scale: float | None = None) -> str:
    tree = _Style(rng, rng.random() < 0.5, scale).visit(reference_definition(item))
    return ast.unparse(ast.fix_missing_locations(ast.Module([tree], [])))


@dataclass
class Plan:
    """A student's choice per item: a fragment's source, or None for the reference's own."""

    name: str
    choices: dict[str, str | None] = field(default_factory=dict)
    own: list[str] = field(default_factory=list)  # items of the student's own code
    bugs: list[str] = field(default_factory=list)  # items with an unusual bug of their own


def independent(name: str, rng: random.Random, own_items: int = 0) -> Plan:
    """A student who works alone; ``own_items`` forces that many items of their own code."""
    plan = Plan(name)
    forced = set(rng.sample(sorted(ITEMS), own_items))
    for item in ITEMS:
        draw = rng.random()
        if item in forced or draw < 0.2:
            scale = round(rng.uniform(1.05, 3.0), 4) if rng.random() < 0.4 else None
            plan.choices[item] = styled(item, rng, scale)
            if scale is not None:
                plan.bugs.append(item)
            plan.own.append(item)
        elif draw < 0.55 and PUBLIC[item]:
            plan.choices[item] = rng.choice(PUBLIC[item])
        else:
            plan.choices[item] = None
    return plan


def module(plan: Plan, notebook: str, rng: random.Random) -> str:
    """The student's file: the reference, then their fragments, disguised their own way."""
    mine = [code for item, code in plan.choices.items() if ITEMS[item] == notebook and code is not None]
    rng.shuffle(mine)
    base = ast.parse(reference(notebook)).body
    heads = [n for n in base if not isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    defs = [n for n in base if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    rng.shuffle(defs)
    parts = [ast.unparse(ast.Module([*heads, *defs], []))] + mine
    return disguise("\n\n\n".join(parts), rng, torch=notebook == "attention_torch")


def disguise(source: str, rng: random.Random, torch: bool) -> str:
    """Local names renamed, reformatted (``ast.unparse``), ``@`` and ``matmul`` swapped, comments added."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
            stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            names = {old: f"{rng.choice(WORDS)}_{rng.randrange(100)}_{i}"
                     for i, old in enumerate(sorted(stored - params - _KEEP))}
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and n.id in names:
                    n.id = names[n.id]
    swap = rng.random() < 0.5
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.BinOp) and isinstance(value.op, ast.MatMult) and swap:
                lib = "torch" if torch else "np"
                setattr(node, name, ast.Call(ast.Attribute(ast.Name(lib, ast.Load()), "matmul", ast.Load()),
                                             [value.left, value.right], []))
    lines = ast.unparse(ast.fix_missing_locations(tree)).splitlines()
    out = []
    for line in lines:
        if line and not line.startswith((" ", ")", "]", "}")) and rng.random() < 0.3:
            out.append(f"# {rng.choice(WORDS)} {rng.randrange(1000)}")
        out.append(line)
    return "\n".join(out) + "\n"


def build(out: Path, students: int, seed: int, planted_share: float = 0.2) -> list[tuple[str, str, str]]:
    """Write the class; return the planted pairs (copier, source, kind)."""
    rng = random.Random(seed)
    copiers = int(students * planted_share)
    plans = [independent(f"s{n:04}", rng, own_items=4 if n < copiers else 0)
             for n in range(students - copiers)]
    planted = []
    for n in range(copiers):
        source = plans[n]
        kind = ("whole", "partial", "bug")[n % 3]
        copier = independent(f"s{len(plans):04}", rng)
        if kind == "whole":
            copier.choices = dict(source.choices)
        else:
            if kind == "bug" and not source.bugs:
                item = rng.choice(source.own)
                source.choices[item] = styled(item, rng, round(rng.uniform(1.05, 3.0), 4))
                source.bugs.append(item)
            pool = [i for i in source.own if i not in source.bugs] if kind == "bug" else source.own
            take = [rng.choice(source.bugs)] if kind == "bug" else []
            take += rng.sample(pool, min(len(pool), (2 if kind == "bug" else rng.choice((2, 3)))))
            for item in take:
                copier.choices[item] = source.choices[item]
        plans.append(copier)
        planted.append((copier.name, source.name, kind))
    order = list(range(len(plans)))
    rng.shuffle(order)  # ids say nothing of who copied whom
    names = {plans[i].name: f"student_{k:04}" for k, i in enumerate(order)}
    for plan in plans:
        folder = out / names[plan.name]
        folder.mkdir(parents=True)
        for notebook in NOTEBOOKS:
            (folder / f"{notebook}.py").write_text(module(plan, notebook, rng), encoding="utf-8")
    return [(names[a], names[b], kind) for a, b, kind in planted]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    write_planted(args.out, build(args.out, args.students, args.seed))


def write_planted(out: Path, planted: list[tuple[str, str, str]]) -> None:
    """``OUT_DIR.planted.csv``: the planted rows, and a line to say where the class is."""
    with open(out.with_suffix(".planted.csv"), "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_a", "student_b", "kind"])
        writer.writerows(planted)
    print(f"{sum(1 for _ in out.iterdir())} students in {out}; {len(planted)} planted rows in "
          f"{out.with_suffix('.planted.csv')}")


if __name__ == "__main__":
    main()
