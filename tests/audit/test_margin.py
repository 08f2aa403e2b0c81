"""The audit's margins: how far outside the tolerance a caught mutant lands, and how close to
it a correct alternative comes."""

from __future__ import annotations

from grader.audit.margin import Margin, alternative_margin, mutant_margin, print_alternative_margins, print_margins
from grader.records.results import CheckResult, ItemResult


def _item(*checks: tuple[str, bool, float | None]) -> ItemResult:
    results = tuple(CheckResult(name, 1.0, 1.0 if passed else 0.0, passed, "" if passed else "failed", margin)
                    for name, passed, margin in checks)
    return ItemResult("softmax", "attention_numpy", len(checks), sum(c.earned for c in results), results, "", 0, None)


def test_the_margin_is_the_widest_of_the_failed_tolerance_checks() -> None:
    item = _item(("a", False, 12.0), ("b", False, None), ("c", False, 3e4), ("d", True, None))
    assert mutant_margin(item) == Margin(3e4, "c")
    assert str(mutant_margin(item)) == "x3.0e+04 (c)"


def test_a_mutant_caught_without_a_tolerance_is_exact() -> None:
    item = _item(("a", False, None), ("b", True, None), ("c", False, None))
    margin = mutant_margin(item)
    assert margin == Margin(None, "a, c")
    assert str(margin) == "exact (a, c: no tolerance involved)"


def test_print_margins_lists_the_narrowest_first() -> None:
    lines: list[str] = []
    print_margins([("wide", "softmax", Margin(5e4, "x")), ("exact", "causal_mask", Margin(None, "y")),
                   ("narrow", "softmax", Margin(7e2, "z"))], lines.append)
    body = [line.split()[0] for line in lines[2:-1]]
    assert body == ["narrow", "wide", "exact"]
    assert lines[-1] == "narrowest margin: x7.0e+02 (narrow); 1 mutant(s) caught without a tolerance"


def test_no_mutants_no_section() -> None:
    lines: list[str] = []
    print_margins([], lines.append)
    assert lines == []


def test_an_alternatives_margin_is_the_closest_of_its_passed_comparisons() -> None:
    checks = tuple(CheckResult(name, 1.0, 1.0, True, "", closest=closest)
                   for name, closest in (("a", 0.02), ("b", None), ("c", 0.4)))
    item = ItemResult("softmax", "attention_numpy", 3, 3, checks, "", 0, None)
    assert alternative_margin(item) == Margin(0.4, "c")
    assert str(alternative_margin(item)) == "x4.0e-01 (c)"
    exact = ItemResult("causal_mask", "attention_numpy", 1, 1, (CheckResult("d", 1.0, 1.0, True, ""),), "", 0, None)
    assert alternative_margin(exact) == Margin(None, "d")


def test_print_alternative_margins_lists_the_closest_to_failing_first() -> None:
    lines: list[str] = []
    print_alternative_margins([("far", "softmax", Margin(1e-3, "x")), ("exact", "causal_mask", Margin(None, "y")),
                               ("near", "softmax", Margin(0.6, "z"))], lines.append)
    assert lines[1].startswith("alternatives' margins (largest error / tolerance among the checks each passed")
    assert [line.split()[0] for line in lines[2:-1]] == ["near", "far", "exact"]
    assert lines[-1] == "closest margin: x6.0e-01 (near); 1 alternative(s) compared without a tolerance"
