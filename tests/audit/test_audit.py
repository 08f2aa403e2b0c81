"""``python -m grader audit``: the real CLI on the real catalogue, the automatic mutation
generator, and proof that a weakened check set makes the audit fail."""

from __future__ import annotations

import ast
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import load_catalogue
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.audit import (
    ALL_ITEMS,
    AuditResult,
    AutoMutant,
    AutoResult,
    CaseResult,
    auto_mutants,
    print_table,
    run_audit,
)
from grader.audit.naming import judge_correct, judge_mutant, print_confusion
from grader.records.results import SubmissionResult

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
NOTEBOOKS = BUNDLE.assignment.notebooks
SEED = 5
reference_source = BUNDLE.reference_source


def copy_of_the_yaml(tmp_path: Path, raw: dict[str, Any] | None = None) -> Path:
    """The attention YAML (or ``raw``) in ``tmp_path``, with the real checks and reference and
    ``tmp_path / "catalogue"`` as its catalogue."""
    raw = raw or yaml.safe_load(DEFAULT_ASSIGNMENT.read_text(encoding="utf-8"))
    raw["bundle"] = {**raw["bundle"], "checks": str(BUNDLE.root / "checks"), "reference": str(BUNDLE.reference_dir)}
    path = tmp_path / "assignment.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return path


# ---- the real CLI, once ----------------------------------------------------------------

@pytest.fixture(scope="module")
def audit_run() -> subprocess.CompletedProcess[str]:
    pytest.importorskip("torch", reason="grading the torch items needs torch")
    pytest.importorskip("nbgrader", reason="releasing the stubs needs nbgrader")
    return subprocess.run([sys.executable, "-m", "grader", "audit", "--seed", str(SEED)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1200)


def test_audit_cli_passes(audit_run: subprocess.CompletedProcess[str]) -> None:
    assert audit_run.returncode == 0, audit_run.stdout + audit_run.stderr
    assert "MISS" not in audit_run.stdout
    assert "audit passed" in audit_run.stdout
    assert f"audit with seed {SEED} (reproduce with --seed {SEED})" in audit_run.stdout


def test_audit_table_has_every_case(audit_run: subprocess.CompletedProcess[str]) -> None:
    entries = load_catalogue(BUNDLE)
    mutants = [e for e in entries if e.kind == "mutant"]
    lines = audit_run.stdout.splitlines()

    def row(kind: str, name: str) -> list[str]:
        found = [line.split() for line in lines if line.startswith(f"{kind} ") and f" {name} " in line]
        assert len(found) == 1, f"expected one table line for {kind} {name}:\n{audit_run.stdout}"
        return found[0]

    assert row("reference", "reference")[3] == "ok"
    assert "NotImplementedError" in next(line for line in lines if line.startswith("stubs "))
    assert row("stubs", "released")[4] == "ok"
    for entry in entries:
        cells = row(entry.kind, entry.name)
        assert cells[2] == entry.item
        assert cells[3] == ("caught" if entry.kind == "mutant" else "ok")
        if entry.kind == "mutant":  # the checks that caught it are named, and are checks of its item
            caught_by = " ".join(cells[4:]).split("[")[0].replace(",", " ").split()
            assert caught_by and set(caught_by) <= BUNDLE.checks.known()[entry.item], cells
    score = re.search(r"^mutation score: (\d+)/(\d+) catalogue mutants caught", audit_run.stdout, re.MULTILINE)
    assert score is not None, audit_run.stdout
    assert int(score.group(1)) == int(score.group(2)) == len(mutants)
    alternatives = len(entries) - len(mutants)
    assert f"alternatives: {alternatives}/{alternatives} with full marks" in audit_run.stdout


def test_written_answers_are_neither_the_references_nor_a_mutants_business(
        audit_run: subprocess.CompletedProcess[str]) -> None:
    """The written answers (the reference's notebooks hold model answers, the stubs "YOUR
    ANSWER HERE") are graded by a person: the audit grades the items alone and names no answer."""
    assert BUNDLE.assignment.written
    for question in BUNDLE.assignment.written:
        assert question.id not in audit_run.stdout + audit_run.stderr
    full = f"{BUNDLE.assignment.items_points:g} / {BUNDLE.assignment.items_points:g}"
    reference = next(line for line in audit_run.stdout.splitlines() if line.startswith("reference "))
    assert reference.split()[3] == "ok" and full in reference, reference
    stubs = next(line for line in audit_run.stdout.splitlines() if line.startswith("stubs "))
    assert f"0 / {BUNDLE.assignment.items_points:g}" in stubs, stubs


def test_audit_reports_each_mutants_margin(audit_run: subprocess.CompletedProcess[str]) -> None:
    mutants = {e.name for e in load_catalogue(BUNDLE, ("mutant",))}
    lines = audit_run.stdout.splitlines()
    start = lines.index("margins (worst error / tolerance of the check that caught each mutant; narrowest first):")
    end = next(k for k in range(start, len(lines)) if lines[k].startswith("narrowest margin: x"))
    rows = [line.split() for line in lines[start + 1:end]]
    assert {row[0] for row in rows} == mutants
    ratios = [float(row[2][1:]) for row in rows if row[2].startswith("x")]
    assert ratios == sorted(ratios) and ratios[0] > 10, ratios  # narrowest first, far outside
    assert all(row[2].startswith("x") or row[2] == "exact" for row in rows), rows


def test_audit_reports_each_alternatives_closest_margin(audit_run: subprocess.CompletedProcess[str]) -> None:
    alternatives = {e.name for e in load_catalogue(BUNDLE, ("alternative",))}
    lines = audit_run.stdout.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("alternatives' margins ("))
    end = next(k for k in range(start, len(lines)) if lines[k].startswith("closest margin: x"))
    rows = [line.split() for line in lines[start + 1:end]]
    assert {row[0] for row in rows} == alternatives
    ratios = [float(row[2][1:]) for row in rows if row[2].startswith("x")]
    assert ratios == sorted(ratios, reverse=True) and 0 < ratios[0] <= 1, ratios  # closest first, inside


# ---- the automatic mutants ----------------------------------------------------------------

@pytest.fixture(scope="module")
def mutants() -> dict[str, list[AutoMutant]]:
    return {nb: auto_mutants(reference_source(nb), nb) for nb in NOTEBOOKS}


def _function_ranges(source: str) -> dict[str, tuple[int, int]]:
    """Qualified name -> (first line, last line) of every def and class."""
    ranges: dict[str, tuple[int, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}" if prefix else child.name
                ranges[name] = (child.lineno, child.end_lineno or child.lineno)
                visit(child, name)

    visit(ast.parse(source), "")
    return ranges


def _changed_nodes(a: ast.AST, b: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """Nodes that differ between two trees of the same shape (type or plain fields)."""
    walk_a, walk_b = list(ast.walk(a)), list(ast.walk(b))
    assert len(walk_a) == len(walk_b)

    def plain(node: ast.AST) -> list[object]:
        return [v for _, v in ast.iter_fields(node) if not isinstance(v, (ast.AST, list))]

    return [(x, y) for x, y in zip(walk_a, walk_b, strict=True) if type(x) is not type(y) or plain(x) != plain(y)]


def test_there_are_mutants_of_every_graded_item(mutants: dict[str, list[AutoMutant]]) -> None:
    for nb in NOTEBOOKS:
        assert {m.item for m in mutants[nb]} == {i.name for i in BUNDLE.assignment.items_of(nb)}
    for nb, found in mutants.items():
        assert len({m.source for m in found}) == len(found), f"{nb}: duplicate mutants"


def test_each_mutant_parses_and_changes_one_span_of_its_function(mutants: dict[str, list[AutoMutant]]) -> None:
    for nb, found in mutants.items():
        source = reference_source(nb)
        ranges = _function_ranges(source)
        original = ast.dump(ast.parse(source))
        for m in found:
            assert ast.dump(ast.parse(m.source)) != original, m
            # one contiguous span replaced: reference = prefix + original + suffix
            start = source.index(m.original, _offset(source, m.line, m.col))
            assert start == _offset(source, m.line, m.col), m
            assert m.source == source[:start] + m.replacement + source[start + len(m.original):], m
            # ... inside the function it names, which is inside the item it names
            first, last = ranges[m.function]
            assert first <= m.line <= last, m
            assert m.function == m.item or m.function.startswith(m.item + "."), m
            assert not m.function.startswith("_") and "._" not in m.function.replace(".__init__", ""), m


def _offset(source: str, line: int, col: int) -> int:
    return sum(len(text) for text in source.splitlines(keepends=True)[: line - 1]) + col


def test_operator_mutants_differ_by_exactly_one_operator(mutants: dict[str, list[AutoMutant]]) -> None:
    ops = (ast.operator, ast.cmpop, ast.boolop)
    for nb, found in mutants.items():
        tree = ast.parse(reference_source(nb))
        for m in found:
            mutated = ast.parse(m.source)
            if m.kind in ("binop", "compare", "boolop"):
                changed = _changed_nodes(tree, mutated)
                assert len(changed) == 1, m
                old, new = changed[0]
                assert isinstance(old, ops) and isinstance(new, ops) and type(old) is not type(new), m
            elif m.kind in ("constant", "name"):
                changed = _changed_nodes(tree, mutated)
                assert len(changed) == 1, m
                assert type(changed[0][0]) is type(changed[0][1]), m
            elif m.kind == "swap_args":
                assert len(_changed_nodes(tree, mutated)) >= 1, m
            else:  # drop_keyword, drop_unary: one node fewer (or a keyword fewer)
                assert len(list(ast.walk(mutated))) < len(list(ast.walk(tree))), m


def _find(found: list[AutoMutant], function: str, mutation: str, line_has: str) -> AutoMutant:
    """The mutant ``mutation`` of ``function`` on a reference line that contains ``line_has``."""
    lines = reference_source(found[0].notebook).splitlines()
    hits = [m for m in found if m.function == function and m.mutation == mutation
            and line_has in lines[m.line - 1]]
    assert hits, f"no mutant {mutation} in {function} on a line with {line_has!r}"
    return hits[0]


def test_the_expected_mutations_are_generated(mutants: dict[str, list[AutoMutant]]) -> None:
    numpy, torch_ = mutants["attention_numpy"], mutants["attention_torch"]
    m = _find(numpy, "softmax", "`-` -> `+`", "shifted = x - np.max")
    assert "x + np.max" in m.source.splitlines()[m.line - 1]
    assert _find(numpy, "softmax", "drop `keepdims=True`", "np.max(x").item == "softmax"
    assert _find(numpy, "softmax", "`-1` -> `-2`", "def softmax").kind == "constant"
    assert _find(numpy, "positional_encoding", "`.sin` -> `.cos`", "np.sin(angles)")
    assert _find(numpy, "causal_mask", "`<=` -> `<`", "<=")
    assert _find(numpy, "scaled_dot_product_attention", "`/` -> `*`", "math.sqrt(d_k)")
    assert _find(numpy, "scaled_dot_product_attention", "`-1` -> `-2`", "np.swapaxes(K, -1, -2)")
    assert _find(numpy, "scaled_dot_product_attention", "swap arguments `scores` and `-np.inf` of `np.where`",
                 "np.where")
    assert _find(numpy, "positional_encoding", "`0` -> `1`", "pe[:, 0::2]")
    assert _find(torch_, "MultiHeadAttention.forward", "`/` -> `*`", "math.sqrt(self.d_k)").item == \
        "MultiHeadAttention"
    assert _find(torch_, "MultiHeadAttention.forward", "drop `~`", "masked_fill(~mask")
    assert _find(torch_, "BahdanauAttention.__init__", "`False` -> `True`", "self.v = nn.Linear")
    assert _find(torch_, "PositionalEncoding.__init__", "`5000` -> `5001`", "def __init__")
    # the private helper is shared by several items: never mutated
    assert not any("_softmax_last_axis" in m.function for m in numpy)
    helper = _function_ranges(reference_source("attention_numpy"))["_softmax_last_axis"]
    assert not any(helper[0] <= m.line <= helper[1] for m in numpy)


def test_names_restrict_the_mutated_functions() -> None:
    only = auto_mutants(reference_source("attention_numpy"), "attention_numpy", names=["softmax"])
    assert only and {m.item for m in only} == {"softmax"}
    assert all(m.notebook == "attention_numpy" for m in only)


def test_docstrings_and_messages_are_never_mutated(mutants: dict[str, list[AutoMutant]]) -> None:
    for nb, found in mutants.items():
        tree = ast.parse(reference_source(nb))
        protected: list[Any] = [n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)]
        protected += [d.body[0] for d in ast.walk(tree)
                      if isinstance(d, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(d)]
        spans = [((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)) for n in protected]
        assert spans
        for m in found:
            here = (m.line, m.col)
            assert not any(a <= here < b for a, b in spans), m


# ---- the report -----------------------------------------------------------------------

def test_report_names_misses_and_survivors() -> None:
    survivor = AutoMutant("attention_numpy", "softmax", "softmax", 60, 14, "compare", "`<` -> `<=`",
                          "a < b", "a <= b", "\n" * 59 + "    y = a <= b\n")
    report = AuditResult(
        seed=7, seconds=1.0,
        cases=(CaseResult("reference", "reference", ALL_ITEMS, "ok", ()),
               CaseResult("mutant", "softmax_no_max_shift", "softmax", "MISS", (), "survived"),
               CaseResult("mutant", "causal_mask_strict", "causal_mask", "caught", ("allows_past_and_self",)),
               CaseResult("alternative", "softmax_loops", "softmax", "ok", ())),
        auto=(AutoResult(survivor, False, ()),), auto_generated=3,
    )
    assert not report.ok and report.mutation_score == (1, 2) and report.survivors
    out = io.StringIO()
    print_table(report, out)
    text = out.getvalue()
    assert re.search(r"^mutant +softmax_no_max_shift +softmax +MISS", text, re.MULTILINE), text
    assert "mutation score: 1/2 catalogue mutants caught (50.0%)" in text
    assert "automatic mutants: 0/1 killed" in text and "1 graded of 3 generated" in text
    assert "attention_numpy.py:60  softmax: `<` -> `<=`" in text
    assert "audit FAILED: 1 miss(es): mutant softmax_no_max_shift" in text


# ---- a weakened check set fails the audit -------------------------------------------------

def _caught_by_in_process(assignment, entry, seed: int) -> list[str]:  # type: ignore[no-untyped-def]
    from grader.runners.inprocess import InProcessRunner
    from grader.submissions.load import Cell, SourceFile
    from grader.worker.score import run_item

    source = reference_source(entry.notebook) + "\n\n" + entry.code
    runner = InProcessRunner.from_source(SourceFile(entry.notebook, f"{entry.notebook}.py", (Cell(1, source),)),
                                         seconds=2)
    result, _ = run_item(assignment.item(entry.item), runner, seed, BUNDLE.checks)
    return [c.name for c in result.checks if not c.passed]


def test_a_weakened_check_set_fails_naming_the_mutant(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the reference's torch items need torch to get full marks")
    assignment = BUNDLE.assignment
    mutants = [e for e in load_catalogue(BUNDLE, ("mutant",)) if e.notebook == "attention_numpy"]
    mutants.sort(key=lambda e: (e.item != "softmax", e.name))  # softmax first, as an example
    for entry in mutants:
        caught_by = _caught_by_in_process(assignment, entry, SEED)
        if 0 < len(caught_by) < len(assignment.item(entry.item).checks):
            break
    else:
        pytest.fail("no numpy mutant is caught by only some of its item's checks")

    raw = yaml.safe_load(DEFAULT_ASSIGNMENT.read_text(encoding="utf-8"))
    for check in caught_by:
        del raw["items"][entry.item]["checks"][check]
    (tmp_path / "catalogue" / "mutants").mkdir(parents=True)
    # Its header's checks (# loses:, # says:) are the ones just taken away: an author would drop them.
    source = (BUNDLE.catalogue_dir / "mutants" / f"{entry.name}.py").read_text(encoding="utf-8")
    kept = [line for line in source.splitlines(keepends=True) if not line.startswith(("# loses:", "# says:"))]
    (tmp_path / "catalogue" / "mutants" / f"{entry.name}.py").write_text("".join(kept), encoding="utf-8")
    weakened = copy_of_the_yaml(tmp_path, raw)

    out = io.StringIO()
    code = run_audit(weakened, seed=SEED, stubs=False, file=out)
    text = out.getvalue()
    assert code == 1, text
    assert re.search(r"^reference +reference +\(all\) +ok", text, re.MULTILINE), text
    assert re.search(rf"^mutant +{entry.name} +{entry.item} +MISS .*survived", text, re.MULTILINE), text
    assert "mutation score: 0/1 catalogue mutants caught" in text
    assert f"audit FAILED: 1 miss(es): mutant {entry.name}" in text


def test_auto_mutants_and_unreleasable_stubs_in_one_small_run(tmp_path: Path) -> None:
    """--auto through the grading path (a sample of 4), and stubs that cannot be released: a MISS
    (a catalogue-less copy of the YAML keeps the run small)."""
    pytest.importorskip("torch", reason="the reference's torch items need torch to get full marks")
    from grader.audit import audit

    report = audit(copy_of_the_yaml(tmp_path), seed=SEED, auto=True, max_auto=4, source_dir=tmp_path)
    generated = sum(len(auto_mutants(reference_source(nb), nb, [i.name for i in BUNDLE.assignment.items_of(nb)]))
                    for nb in NOTEBOOKS)
    assert report.auto_generated == generated and len(report.auto) == 4
    assert [c.kind for c in report.cases] == ["reference", "stubs"]
    assert report.cases[0].verdict == "ok"
    assert report.misses == (report.cases[1],) and "could not release the stubs" in report.cases[1].detail
    for result in report.auto:  # a killed mutant names the checks, on items of its own notebook
        assert result.killed == bool(result.checks)
        assert all(check.split(".")[0] in {i.name for i in BUNDLE.assignment.items_of(result.mutant.notebook)}
                   for check in result.checks)
    out = io.StringIO()
    print_table(report, out)
    text = out.getvalue()
    killed = sum(r.killed for r in report.auto)
    assert f"automatic mutants: {killed}/4 killed" in text and f"4 graded of {generated} generated" in text
    assert "audit FAILED: 1 miss(es): stubs released notebooks" in text


def test_a_mutant_that_passes_a_check_its_header_names_is_a_miss(tmp_path: Path) -> None:
    """`# loses:` is checked: a mutant caught by other checks, but not by one it names, is a MISS;
    a mutant that is caught gets its margin."""
    pytest.importorskip("torch", reason="the reference's torch items need torch to get full marks")
    path = copy_of_the_yaml(tmp_path)
    mutants = tmp_path / "catalogue" / "mutants"
    mutants.mkdir(parents=True)
    source = BUNDLE.catalogue_dir / "mutants"
    blocked = (source / "sdpa_tf_tutorial_blocked_mask.py").read_text(encoding="utf-8")
    blocked = blocked.replace("# loses: ", "# loses: output_and_weight_shapes, ")
    (mutants / "blocked.py").write_text(blocked, encoding="utf-8")
    shutil.copy(source / "sdpa_no_scale.py", mutants)
    out = io.StringIO()
    code = run_audit(path, seed=SEED, stubs=False, file=out)
    text = out.getvalue()
    assert code == 1, text
    assert re.search(r"^mutant +blocked +scaled_dot_product_attention +MISS .*"
                     r"caught, but it passes output_and_weight_shapes, which it must fail", text, re.MULTILINE), text
    assert re.search(r"^  sdpa_no_scale +scaled_dot_product_attention +x\d\.\de\+0\d \(", text, re.MULTILINE), text


# ---- the diagnosis ----------------------------------------------------------------------

def test_the_audit_names_every_answering_mutant_as_itself(audit_run: subprocess.CompletedProcess[str]) -> None:
    text = audit_run.stdout
    mutants = len(load_catalogue(BUNDLE, ("mutant",)))
    alternatives = len(load_catalogue(BUNDLE, ("alternative",)))
    assert f"diagnosis: {mutants - 1}/{mutants} mutants named as themselves" in text, text
    assert "1 with no output to compare: causal_mask_loops_forever" in text
    assert "mha_annotated_transformer_assert = mha_assert_instead_of_value_error" in text
    assert f"diagnosis: {alternatives + 2}/{alternatives + 2} correct or blank submissions" in text
    assert re.search(r"^ +\d+  sdpa_no_scale +[.# ]+$", text, re.MULTILINE), text  # a row of the table
    assert "diagnosis FAILED" not in text


def _graded(item: str, named: tuple[str, ...], earned: float = 0.0) -> SubmissionResult:
    return SubmissionResult.from_json({
        "student": "s", "score": earned, "max_score": 10.0, "notebooks": [], "seconds": 0.0,
        "items": [{"name": item, "notebook": "attention_numpy", "points": 10.0, "earned": earned,
                   "checks": [{"name": "c", "points": 10.0, "earned": earned, "passed": earned > 0,
                               "message": "", "margin": None}],
                   "output": "", "output_dropped": 0, "error": None,
                   "diagnoses": [{"mistake": m, "message": "m."} for m in named]}]})


@pytest.mark.parametrize("named, verdict, failed", [
    (("sdpa_no_scale",), "self", False),
    (("sdpa_no_scale", "sdpa_twin"), "self", False),
    (("sdpa_divides_by_dk",), "WRONG", True),
    ((), "NONE", True),
])
def test_a_mutant_named_as_another_or_as_nothing_fails_the_audit(named: tuple[str, ...], verdict: str,
                                                                 failed: bool) -> None:
    (case,) = judge_mutant("sdpa_no_scale", "scaled_dot_product_attention",
                           _graded("scaled_dot_product_attention", named))
    assert (case.verdict, case.failed) == (verdict, failed)
    lines: list[str] = []
    print_confusion([case], lines.append)
    assert any("diagnosis FAILED" in line for line in lines) == failed


def test_a_diagnosis_on_correct_code_fails_the_audit() -> None:
    (case,) = judge_correct("alternative", "sdpa_einsum", _graded("scaled_dot_product_attention", ("sdpa_no_scale",)))
    assert case.failed and case.item == "scaled_dot_product_attention"
    (case,) = judge_correct("alternative", "sdpa_einsum", _graded("scaled_dot_product_attention", (), 10.0))
    assert not case.failed
