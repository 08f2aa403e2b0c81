"""How far outside the tolerance a caught mutant lands, and how close to it a correct
alternative comes: the audit's margins.

A check that fails a tolerance comparison records its margin (``CheckResult.margin``): the
worst error divided by the tolerance there. A mutant's margin is the largest among the checks
of its item that caught it: the tolerance would have to grow by that factor before all of
them let it through. A mutant caught only by checks without a tolerance (a shape, a dtype, an
exception, a masked weight that must be exactly 0, a NaN) is caught whatever the tolerance.

An alternative's margin is the largest error / tolerance among the comparisons its item's
checks passed (``CheckResult.closest``, at most 1): the tolerance could shrink by that factor
before it failed; near 1, a correct implementation nearly fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..records.results import ItemResult


@dataclass(frozen=True)
class Margin:
    ratio: float | None  # worst error / tolerance; None: no tolerance comparison caught it
    check: str  # the check with that ratio, or the checks that caught it without a tolerance

    def __str__(self) -> str:
        if self.ratio is None:
            return f"exact ({self.check}: no tolerance involved)"
        return f"x{self.ratio:.1e} ({self.check})"


def mutant_margin(item: ItemResult) -> Margin:
    """The margin of a mutant from the result of its own item (at least one check failed)."""
    failed = [c for c in item.checks if not c.passed]
    measured = [c for c in failed if c.margin is not None]
    if not measured:
        return Margin(None, ", ".join(c.name for c in failed))
    widest = max(measured, key=lambda c: c.margin or 0.0)
    return Margin(widest.margin, widest.name)


def alternative_margin(item: ItemResult) -> Margin:
    """The margin of an alternative from the result of its own item (every check passed)."""
    measured = [c for c in item.checks if c.closest is not None]
    if not measured:
        return Margin(None, ", ".join(c.name for c in item.checks))
    closest = max(measured, key=lambda c: c.closest or 0.0)
    return Margin(closest.closest, closest.name)


def print_alternative_margins(rows: Sequence[tuple[str, str, Margin]], say: Callable[[str], None]) -> None:
    """``rows``: (alternative, item, margin) of every alternative with full marks; the closest
    to failing first."""
    if not rows:
        return
    say("")
    say("alternatives' margins (largest error / tolerance among the checks each passed; closest to failing first):")
    measured = sorted((r for r in rows if r[2].ratio is not None), key=lambda r: -(r[2].ratio or 0.0))
    exact = [r for r in rows if r[2].ratio is None]
    _print_rows([*measured, *exact], say)
    if measured:
        name, _, margin = measured[0]
        say(f"closest margin: x{margin.ratio:.1e} ({name}); {len(exact)} alternative(s) compared without a tolerance")


def _print_rows(rows: Sequence[tuple[str, str, Margin]], say: Callable[[str], None]) -> None:
    width = max(len(name) for name, _, _ in rows)
    item_width = max(len(item) for _, item, _ in rows)
    for name, item, margin in rows:
        say(f"  {name:<{width}}  {item:<{item_width}}  {margin}")


def print_margins(rows: Sequence[tuple[str, str, Margin]], say: Callable[[str], None]) -> None:
    """``rows``: (mutant, item, margin) of every caught mutant; the narrowest margins first."""
    if not rows:
        return
    say("")
    say("margins (worst error / tolerance of the check that caught each mutant; narrowest first):")
    measured = sorted((r for r in rows if r[2].ratio is not None), key=lambda r: r[2].ratio or 0.0)
    exact = [r for r in rows if r[2].ratio is None]
    _print_rows([*measured, *exact], say)
    if measured:
        name, _, margin = measured[0]
        say(f"narrowest margin: x{margin.ratio:.1e} ({name}); {len(exact)} mutant(s) caught without a tolerance")
