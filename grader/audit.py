"""Prove the checks through the real grading path.

One temporary class is graded with :func:`grader.grade.grade_class` (sandboxes, warm
workers, one seed), holding:

* the reference as a submission: it must get full marks;
* the released stubs (nbgrader's ``generate_assignment`` of the source notebooks): zero on
  every item, each failure a ``NotImplementedError`` (no timeout, no dead process);
* every mutant of the catalogue: it must lose points on its own item and only there;
* every alternative of the catalogue: full marks;
* with ``auto``, mutants made automatically from the reference source (one operator or
  constant changed in one public function or class). A survivor (a mutant that lost no
  points) is reported as a hint at a weak check, never as a failure: some mutations are
  equivalent.

:func:`audit` returns typed results, :func:`print_report` prints them, and
:func:`run_audit` (behind ``python -m grader audit``) does both and returns the exit code.
"""

from __future__ import annotations

import ast
import copy
import json
import random
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .catalogue import Entry, load_catalogue, reference_source, write_submission
from .checks import known_checks
from .config import DEFAULT_ASSIGNMENT, load_assignment
from .margin import Margin, mutant_margin, print_margins
from .results import ItemResult, SubmissionResult

ALL_ITEMS = "(all)"


# ---- typed results ---------------------------------------------------------------------

@dataclass(frozen=True)
class CaseResult:
    """The verdict on one submission of the audit (everything but the automatic mutants)."""

    kind: str  # "reference", "stubs", "mutant" or "alternative"
    name: str
    item: str  # the item the case is about, or ALL_ITEMS
    verdict: str  # "ok", "caught" (a mutant that lost points on its item, only there) or "MISS"
    checks: tuple[str, ...]  # mutant: the checks that caught it; otherwise the checks that failed
    detail: str = ""  # why a MISS is one, or a note
    margin: Margin | None = None  # a caught mutant: how far outside the tolerance it landed

    @property
    def missed(self) -> bool:
        return self.verdict == "MISS"


@dataclass(frozen=True)
class AutoMutant:
    """The reference module of ``notebook`` with one operator or constant changed."""

    notebook: str
    item: str  # the public (graded) function or class the change is in
    function: str  # the innermost function: "softmax", "MultiHeadAttention.forward"
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


@dataclass(frozen=True)
class AutoResult:
    mutant: AutoMutant
    killed: bool  # lost points on some item of its notebook
    checks: tuple[str, ...]  # "item.check" that failed


@dataclass(frozen=True)
class AuditReport:
    seed: int
    seconds: float
    cases: tuple[CaseResult, ...]
    auto: tuple[AutoResult, ...] = ()
    auto_generated: int = 0  # before --max-auto
    notes: tuple[str, ...] = ()

    @property
    def misses(self) -> tuple[CaseResult, ...]:
        return tuple(c for c in self.cases if c.missed)

    @property
    def ok(self) -> bool:
        return not self.misses

    @property
    def mutation_score(self) -> tuple[int, int]:
        mutants = [c for c in self.cases if c.kind == "mutant"]
        return sum(1 for c in mutants if c.verdict == "caught"), len(mutants)

    @property
    def survivors(self) -> tuple[AutoResult, ...]:
        return tuple(r for r in self.auto if not r.killed)


# ---- the audit -------------------------------------------------------------------------

@dataclass(frozen=True)
class _Case:
    kind: str
    name: str
    entry: Entry | None = None
    auto: AutoMutant | None = None


def audit(
    assignment_path: Path | str = DEFAULT_ASSIGNMENT,
    *,
    seed: int | None = None,
    jobs: int | None = None,
    auto: bool = False,
    max_auto: int | None = None,
    stubs: bool = True,
    source_dir: Path | None = None,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> AuditReport:
    """Grade the reference, the released stubs (unless ``stubs=False``), the catalogue beside
    ``assignment_path`` and (with ``auto``) automatic mutants in one class run.

    ``source_dir`` holds the source notebooks that are released for the stubs (default: the
    assignment's folder). ``max_auto`` caps the automatic mutants (a sample drawn with the seed).
    """
    from .grade import grade_class

    assignment = load_assignment(assignment_path, known_checks())
    seed = secrets.randbelow(2**31) if seed is None else seed
    entries = load_catalogue(assignment)
    generated: list[AutoMutant] = []
    chosen: list[AutoMutant] = []
    if auto:
        for notebook in assignment.notebooks:
            generated += auto_mutants(reference_source(notebook), notebook)
        chosen = generated
        if max_auto is not None and max_auto < len(generated):
            picked = sorted(random.Random(seed).sample(range(len(generated)), max(0, max_auto)))
            chosen = [generated[i] for i in picked]
    log(f"audit: seed {seed}; {len(entries)} catalogue entries"
        + (f", {len(chosen)} of {len(generated)} automatic mutants" if auto else ""))

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grader-audit-") as tmp:
        root = Path(tmp)
        class_dir, out_dir = root / "class", root / "out"
        class_dir.mkdir()
        cases: dict[str, _Case] = {}

        def folder(kind: str, name: str, **extra: Any) -> Path:
            student = f"{len(cases):04d}-{kind}-{name}"
            cases[student] = _Case(kind, name, **extra)
            return class_dir / student

        write_submission(folder("reference", "reference"), assignment, None)
        notes: list[str] = []
        stub_error: str | None = None
        if stubs:
            try:
                released = _release(source_dir or assignment.path.parent, root / "release")
            except (ImportError, RuntimeError, ValueError, OSError) as exc:
                stub_error = f"could not release the stubs: {type(exc).__name__}: {exc}"
            else:
                stubs_folder = folder("stubs", "released notebooks")
                stubs_folder.mkdir()
                for path in released:
                    shutil.copyfile(path, stubs_folder / path.name)
        for entry in entries:
            write_submission(folder(entry.kind, entry.name, entry=entry), assignment, entry)
        for mutant in chosen:
            path = folder("auto", mutant.name.replace(":", "-"), auto=mutant)
            path.mkdir()
            (path / f"{mutant.notebook}.py").write_text(mutant.source, encoding="utf-8")

        outcome = grade_class(class_dir, out_dir, assignment_path=assignment.path, seed=seed, jobs=jobs,
                              progress=_progress(), log=log)
        notes += outcome.isolation_notes
        results = {r.student: r for r in _read_results(out_dir / "results.json")}

    report_cases: list[CaseResult] = []
    auto_results: list[AutoResult] = []
    for student, case in cases.items():
        result = results.get(student)
        if result is None:
            report_cases.append(CaseResult(case.kind, case.name, ALL_ITEMS, "MISS", (), "no result"))
            continue
        if case.kind == "auto":
            assert case.auto is not None
            auto_results.append(_judge_auto(case.auto, result))
        else:
            report_cases.append(_judge(case, result))
    if stub_error is not None:  # right after the reference, where the stubs' row would be
        report_cases.insert(1, CaseResult("stubs", "released notebooks", ALL_ITEMS, "MISS", (), stub_error))
    return AuditReport(seed, time.perf_counter() - started, tuple(report_cases), tuple(auto_results),
                       len(generated), tuple(notes))


def _release(source_dir: Path, out_dir: Path) -> list[Path]:
    """The student notebooks, as nbgrader's generate_assignment makes them."""
    from .release import release_assignment

    return release_assignment(Path(source_dir), out_dir)


def _progress() -> Callable[[int, int], None]:
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            from tqdm import tqdm

            # disable=None: a bar on a terminal, nothing in a log.
            bar = tqdm(total=total, unit="case", file=sys.stderr, disable=None, leave=False)
        bar.update(1)
        if done == total:
            bar.close()

    return progress


def _read_results(path: Path) -> Iterator[SubmissionResult]:
    data = json.loads(path.read_text(encoding="utf-8"))
    for student in data["students"]:
        yield SubmissionResult.from_json(student)


def _failed(item: ItemResult) -> tuple[str, ...]:
    return tuple(c.name for c in item.checks if not c.passed)


def _lost(result: SubmissionResult, skip: str | None = None) -> list[str]:
    """``item.check`` for every failed check of every item but ``skip``."""
    return [f"{item.name}.{name}" for item in result.items if item.name != skip for name in _failed(item)]


def _judge(case: _Case, result: SubmissionResult) -> CaseResult:
    if case.kind == "reference":
        lost = _lost(result)
        if lost:
            return CaseResult("reference", case.name, ALL_ITEMS, "MISS", tuple(lost), "the reference lost points")
        return CaseResult("reference", case.name, ALL_ITEMS, "ok", (), f"{result.score:g} / {result.max_score:g}")
    if case.kind == "stubs":
        return _judge_stubs(case, result)
    entry = case.entry
    assert entry is not None
    own = result.item(entry.item)
    if case.kind == "alternative":
        lost = _lost(result)
        if lost:
            return CaseResult("alternative", entry.name, entry.item, "MISS", tuple(lost), "false fail")
        return CaseResult("alternative", entry.name, entry.item, "ok", ())
    # a mutant: caught on its own item, and only there
    caught_by = _failed(own)
    elsewhere = _lost(result, skip=entry.item)
    crash = f"; the item did not run to the end: {own.error}" if own.error else ""
    if not caught_by:
        why = "survived: lost no points on its item" + (" (but lost points elsewhere)" if elsewhere else "")
        return CaseResult("mutant", entry.name, entry.item, "MISS", tuple(elsewhere), why)
    if elsewhere:
        return CaseResult("mutant", entry.name, entry.item, "MISS", caught_by + tuple(elsewhere),
                          "caught, but it also lost points on other items" + crash)
    missing = [check for check in entry.loses if check not in caught_by]
    if missing:
        return CaseResult("mutant", entry.name, entry.item, "MISS", caught_by,
                          f"caught, but it passes {', '.join(missing)}, which it must fail" + crash)
    return CaseResult("mutant", entry.name, entry.item, "caught", caught_by, crash.lstrip("; "),
                      mutant_margin(own))


def _judge_stubs(case: _Case, result: SubmissionResult) -> CaseResult:
    problems = []
    for nb in result.notebooks:
        if nb.failure:
            problems.append(f"{nb.notebook}: {nb.failure}")
    for item in result.items:
        if item.error:
            problems.append(f"{item.name}: {item.error}")
            continue
        for check in item.checks:
            if check.passed or check.earned:
                problems.append(f"{item.name}.{check.name} earns points")
            elif "NotImplementedError" not in check.message:
                problems.append(f"{item.name}.{check.name} failed without NotImplementedError: {check.message}")
    if problems:
        return CaseResult("stubs", case.name, ALL_ITEMS, "MISS", (), "; ".join(problems))
    return CaseResult("stubs", case.name, ALL_ITEMS, "ok", (),
                      f"{result.score:g} / {result.max_score:g}; every check failed on NotImplementedError")


def _judge_auto(mutant: AutoMutant, result: SubmissionResult) -> AutoResult:
    lost = [f"{item.name}.{name}" for item in result.items if item.notebook == mutant.notebook
            for name in _failed(item)]
    return AutoResult(mutant, bool(lost), tuple(lost))


# ---- printing --------------------------------------------------------------------------

def print_report(report: AuditReport, file: TextIO | None = None) -> None:
    out = file or sys.stdout

    def say(line: str = "") -> None:
        print(line, file=out)

    say(f"audit with seed {report.seed} (reproduce with --seed {report.seed})")
    for note in report.notes:
        say(f"warning: sandbox degraded: {note}")
    rows = [(c.kind, c.name, c.item, c.verdict,
             "  ".join(filter(None, [", ".join(c.checks), f"[{c.detail}]" if c.detail else ""])))
            for c in report.cases]
    header = ("kind", "name", "item", "verdict", "checks (caught by / failed)")
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(4)]
    for row in [header, *rows]:
        say("  ".join(f"{v:<{w}}" for v, w in zip(row[:4], widths, strict=True)) + "  " + row[4])
    say("")
    caught, total = report.mutation_score
    say(f"mutation score: {caught}/{total} catalogue mutants caught"
        + (f" ({caught / total:.1%})" if total else ""))
    alternatives = [c for c in report.cases if c.kind == "alternative"]
    false_fails = [c for c in alternatives if c.missed]
    say(f"alternatives: {len(alternatives) - len(false_fails)}/{len(alternatives)} with full marks"
        + (f"; false fails: {', '.join(c.name for c in false_fails)}" if false_fails else ""))
    print_margins([(c.name, c.item, c.margin) for c in report.cases if c.margin is not None], say)
    if report.auto or report.auto_generated:
        _print_auto(report, say)
    if report.ok:
        say(f"audit passed ({report.seconds:.1f} s, seed {report.seed})")
    else:
        say(f"audit FAILED: {len(report.misses)} miss(es): {', '.join(f'{c.kind} {c.name}' for c in report.misses)} "
            f"(seed {report.seed})")


def _print_auto(report: AuditReport, say: Callable[[str], None]) -> None:
    killed = sum(1 for r in report.auto if r.killed)
    total = len(report.auto)
    say("")
    capped = ""
    if total < report.auto_generated:
        capped = f"; {total} graded of {report.auto_generated} generated (--max-auto)"
    say(f"automatic mutants: {killed}/{total} killed" + (f" ({killed / total:.1%})" if total else "") + capped)
    by_function: dict[tuple[str, str], list[AutoResult]] = {}
    for r in report.auto:
        by_function.setdefault((r.mutant.notebook, r.mutant.function), []).append(r)
    width = max((len(f) for _, f in by_function), default=0)
    for (notebook, function), results in by_function.items():
        k = sum(1 for r in results if r.killed)
        say(f"  {function:<{width}}  {k:3d}/{len(results):<3d} killed  ({notebook})")
    survivors = report.survivors
    if survivors:
        say(f"survivors ({len(survivors)}; equivalent mutants or weak checks; not a failure):")
        for r in survivors:
            m = r.mutant
            say(f"  {m.notebook}.py:{m.line}  {m.function}: {m.mutation}   | {_source_line(m)}")


def _source_line(m: AutoMutant) -> str:
    return m.source.splitlines()[m.line - 1].strip()


def run_audit(
    assignment_path: Path | str = DEFAULT_ASSIGNMENT,
    *,
    seed: int | None = None,
    jobs: int | None = None,
    auto: bool = False,
    max_auto: int | None = None,
    stubs: bool = True,
    file: TextIO | None = None,
) -> int:
    """Run the audit, print its table; 0 when nothing was missed, 1 otherwise."""
    report = audit(assignment_path, seed=seed, jobs=jobs, auto=auto, max_auto=max_auto, stubs=stubs)
    print_report(report, file)
    return 0 if report.ok else 1


# ---- automatic mutants -----------------------------------------------------------------

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

    ``names``: the public names to mutate (default: ``__all__``, else names without ``_``).
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
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                break
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
