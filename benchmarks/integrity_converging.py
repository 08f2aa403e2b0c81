"""Harder classes for the integrity report: students who converge strongly, and copies dressed
in the ways a student would dress them.

Every item has a handful of common ways of writing it: the reference's own, a public port or
classic mistake from the catalogue, and three styles of the reference rewritten
(``integrity_class.styled``) that many students take up, each way more popular than the next
(1, 1/2, 1/3, ...). An honest student writes each item one of its ways, and some students keep to
a way of their own across items (a student who writes one step per line does so everywhere),
so honest students share whole items, and several items together, by chance (a third of the
students keep to a way of their own on two items in five); a tenth of their
items are code of their own. Every file is disguised its own way (``integrity_class.disguise``:
names their own, reformatted, comments).

Planted copies take the source's items of its own (4 of them, one with an unusual bug):
``whole``, ``partial`` (2 or 3), ``bug`` (3, the bug among them), as last round; then dressed:
``helpers`` (each body moved into a helper the graded definition calls), ``alias`` (defined
under a name of its own, ``softmax = _my_softmax``), ``dead`` (statements that change nothing
inserted), ``reorder`` (independent statements reordered), ``chain`` (A -> B -> C, each
dressed again: the pair A-C is planted too), ``group`` (five students sharing one solution);
and ``leaked``: a student who hands in the instructor's solution as it is (no pair).

    python benchmarks/integrity_converging.py OUT_DIR --students 150 --seed 1 [--kinds whole,group]
"""

from __future__ import annotations

import argparse
import ast
import copy
import random
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from benchmarks.integrity_class import ITEMS, NOTEBOOKS, PUBLIC, Plan, module, reference, styled, write_planted

DRESSES = ("helpers", "alias", "dead", "reorder")
KINDS = ("whole", "partial", "bug", "helpers", "alias", "dead", "reorder", "chain", "group")


def ways(item: str) -> list[str | None]:
    """The common ways of writing ``item`` in every class (None: the reference's own)."""
    rng = random.Random(f"ways-{item}")
    public = list(PUBLIC[item])
    rng.shuffle(public)
    found: list[str | None] = [None, *public[:2], *(styled(item, random.Random(f"{item}-{k}")) for k in range(3))]
    rng.shuffle(found)
    return found


WAYS = {item: ways(item) for item in ITEMS}


def honest(name: str, rng: random.Random) -> Plan:
    plan = Plan(name)
    keeps = rng.randrange(6) if rng.random() < 0.3 else None  # a way of their own across items
    for item, options in WAYS.items():
        if rng.random() < 0.1:
            plan.choices[item] = styled(item, rng)
            plan.own.append(item)
        elif keeps is not None and rng.random() < 0.4:
            plan.choices[item] = options[keeps % len(options)]
        else:
            plan.choices[item] = rng.choices(options, weights=[1 / (k + 1) for k in range(len(options))])[0]
    return plan


def source(name: str, rng: random.Random) -> Plan:
    """A student with 4 items of their own, one with an unusual bug: what copiers copy."""
    plan = honest(name, rng)
    own = rng.sample(sorted(ITEMS), 4)
    plan.own = own
    for k, item in enumerate(own):
        scale = round(rng.uniform(1.05, 3.0), 4) if k == 0 else None
        plan.choices[item] = styled(item, rng, scale)
    plan.bugs = own[:1]
    return plan


def dressed(code: str, how: str, rng: random.Random) -> str:
    """One item's code dressed: ``helpers``, ``alias``, ``dead`` or ``reorder``."""
    tree = ast.parse(code)
    out: list[ast.stmt] = []
    for node in tree.body:
        if how == "helpers":
            out += _into_helpers(node, rng)
        elif how == "alias" and isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            name = node.name
            node.name = f"_my_{name}_{rng.randrange(100)}"
            out += [node, ast.parse(f"{name} = {node.name}").body[0]]
        else:
            for function in (n for n in ast.walk(node) if isinstance(n, ast.FunctionDef)):
                function.body = _with_dead(function.body, rng) if how == "dead" else _reordered(function.body, rng)
            out.append(node)
    return ast.unparse(ast.fix_missing_locations(ast.Module(out, [])))


def _into_helpers(node: ast.stmt, rng: random.Random) -> list[ast.stmt]:
    functions = [node] if isinstance(node, ast.FunctionDef) else [
        m for m in getattr(node, "body", []) if isinstance(m, ast.FunctionDef) and m.name != "__init__"]
    helpers: list[ast.stmt] = []
    for function in functions:
        helper = copy.deepcopy(function)
        helper.name = f"_{function.name}_impl{rng.randrange(100)}"
        helper.decorator_list = []
        args = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        keywords = [a.arg for a in function.args.kwonlyargs]
        call = ast.parse(f"{helper.name}({', '.join(args + [f'{k}={k}' for k in keywords])})").body[0]
        function.body = [ast.Return(call.value)]  # type: ignore[attr-defined]
        helpers.append(helper)
    return [*helpers, node]


def _with_dead(body: list[ast.stmt], rng: random.Random) -> list[ast.stmt]:
    body = list(body)
    for _ in range(rng.randint(2, 3)):
        note = rng.choice(("unused_{n} = {n} * 2", "check_{n} = len(str({n}))", "trace_{n} = [{n}, {n} + 1]",
                           "_ = {n}")).format(n=rng.randrange(1, 100))
        body.insert(rng.randint(0, max(0, len(body) - 1)), ast.parse(note).body[0])
    return body


def _reordered(body: list[ast.stmt], rng: random.Random) -> list[ast.stmt]:
    body = list(body)
    for _ in range(3 * len(body)):
        if len(body) < 2:
            break
        k = rng.randrange(len(body) - 1)
        first, second = body[k], body[k + 1]
        if all(isinstance(s, ast.Assign) for s in (first, second)) and not _depends(first, second):
            body[k], body[k + 1] = second, first
    return body


def _depends(first: ast.stmt, second: ast.stmt) -> bool:
    def names(stmt: ast.stmt, store: bool) -> set[str]:
        return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) == store}
    return bool(names(first, True) & (names(second, False) | names(second, True)) or names(second, True)
                & names(first, False))


def build(out: Path, students: int, seed: int, kinds: Sequence[str] = (*KINDS, "leaked")) -> list[tuple[str, str, str]]:
    """Write the class with a copy of each of ``kinds`` planted (none: honest students only);
    return the planted pairs (copier, source, kind), and a row (student, "", "leaked") for the
    student who hands in the solution."""
    rng = random.Random(seed)
    plans: list[Plan] = []
    pairs: list[tuple[str, str, str]] = []
    leaked: list[str] = []
    for kind in kinds:
        if kind != "leaked":
            original = source(f"p{len(plans):04}", rng)
            members = [original]
            for _ in range(4 if kind == "group" else 2 if kind == "chain" else 1):
                previous = members[-1] if kind == "chain" else original
                copier = honest(f"p{len(plans) + len(members):04}", rng)
                if kind == "whole":
                    copier.choices = dict(previous.choices)
                    take = previous.own
                elif kind == "partial":
                    take = rng.sample(previous.own, rng.choice((2, 3)))
                elif kind == "bug":
                    take = previous.bugs + rng.sample(previous.own[1:], 2)
                else:
                    take = previous.own
                for item in take:
                    code = previous.choices[item]
                    assert code is not None
                    how = rng.choice(("helpers", "dead", "reorder")) if kind == "chain" else kind
                    copier.choices[item] = dressed(code, how, rng) if how in DRESSES else code
                copier.own = list(take)
                copier.bugs = [i for i in take if i in previous.bugs]
                members.append(copier)
            plans += members
            together = combinations(members, 2) if kind in ("group", "chain") else [(members[1], original)]
            pairs += [(a.name, b.name, kind) for a, b in together]
    if "leaked" in kinds:
        leaked.append(f"p{len(plans):04}")
    while len(plans) + len(leaked) < students:
        plans.append(honest(f"h{len(plans):04}", rng))
    names = [p.name for p in plans] + leaked
    order = list(range(len(names)))
    rng.shuffle(order)  # ids say nothing of who copied whom
    renamed = {names[i]: f"student_{k:04}" for k, i in enumerate(order)}
    for plan in plans:
        folder = out / renamed[plan.name]
        folder.mkdir(parents=True)
        for notebook in NOTEBOOKS:
            (folder / f"{notebook}.py").write_text(module(plan, notebook, rng), encoding="utf-8")
    for name in leaked:
        folder = out / renamed[name]
        folder.mkdir(parents=True)
        for notebook in NOTEBOOKS:
            (folder / f"{notebook}.py").write_text(reference(notebook), encoding="utf-8")
    return sorted({(renamed[a], renamed[b], kind) for a, b, kind in pairs} | {(renamed[s], "", "leaked")
                                                                                 for s in leaked})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--students", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", default=",".join((*KINDS, "leaked")),
                        help="the copies to plant, separated by commas; empty: honest students only")
    args = parser.parse_args()
    write_planted(args.out, build(args.out, args.students, args.seed, [k for k in args.kinds.split(",") if k]))


if __name__ == "__main__":
    main()
