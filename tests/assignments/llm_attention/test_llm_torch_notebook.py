"""The source notebook ``llm_torch.ipynb`` of the llm_attention bundle: its solution is the
reference's code, its visible tests pass on it, its points and its written-answer cell are the
YAML's, and nbgrader's release of it leaves a stub that raises ``NotImplementedError``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed in this environment")

from grader.assignment.bundle import load_bundle  # noqa: E402
from reference import llm_torch as ref  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
BUNDLE = load_bundle(ROOT / "assignments" / "llm_attention")
CELLS = json.loads((BUNDLE.root / "llm_torch.ipynb").read_text(encoding="utf-8"))["cells"]
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)


def grade_id(cell: dict) -> str | None:
    return cell["metadata"].get("nbgrader", {}).get("grade_id")


def source(cell: dict) -> str:
    return "".join(cell["source"])


def by_id(name: str) -> dict:
    (cell,) = [c for c in CELLS if grade_id(c) == name]
    return cell


def solution_namespace() -> dict:
    namespace: dict = {}
    imports = next(c for c in CELLS if c["cell_type"] == "code")
    exec(source(imports), namespace)
    exec(source(by_id("GroupedQueryAttention_solution")), namespace)
    return namespace


def test_the_solution_is_the_reference():
    mine = solution_namespace()["GroupedQueryAttention"]
    for sizes in [(24, 6, 3), (12, 4, 1), (12, 3, 3)]:
        torch.manual_seed(0)
        a = mine(*sizes)
        torch.manual_seed(0)
        b = ref.GroupedQueryAttention(*sizes)
        x = torch.randn(2, 5, sizes[0])
        for ours, theirs in zip(a(x), b(x), strict=True):
            assert torch.equal(ours, theirs)
        cache_a = cache_b = None
        for t in range(3):
            out_a, cache_a = a.decode(x[:, t:t + 1], cache_a)
            out_b, cache_b = b.decode(x[:, t:t + 1], cache_b)
            assert torch.equal(out_a, out_b) and all(torch.equal(p, q) for p, q in zip(cache_a, cache_b, strict=True))
    for bad in [(12, 5, 1), (12, 6, 4), (12, 0, 1), (12, 6, 0)]:
        with pytest.raises(ValueError):
            mine(*bad)


def test_the_visible_tests_pass_on_the_solution(capsys):
    namespace = solution_namespace()
    exec(HIDDEN.sub("", source(by_id("test_GroupedQueryAttention"))), namespace)
    assert "GroupedQueryAttention: visible tests passed" in capsys.readouterr().out


def test_the_points_and_the_written_answer_are_the_yamls():
    item = BUNDLE.assignment.item("GroupedQueryAttention")
    assert by_id("test_GroupedQueryAttention")["metadata"]["nbgrader"]["points"] == item.points
    assert 'assert_item("GroupedQueryAttention", globals(), bundle="llm_attention")' in source(
        by_id("test_GroupedQueryAttention"))
    written = BUNDLE.assignment.written
    answers = [c for c in CELLS if c["cell_type"] == "markdown" and grade_id(c)]
    assert {grade_id(c): c["metadata"]["nbgrader"]["points"] for c in answers} == \
        {w.id: w.points for w in written if w.notebook == "llm_torch"}
