"""The audit's table: one line per case, the mutation score, the automatic mutants killed
per function and their survivors."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from .cases import AuditResult, AutoResult
from .margin import print_alternative_margins, print_margins
from .mutants import AutoMutant
from .naming import print_confusion


def print_table(report: AuditResult, file: TextIO | None = None) -> None:
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
    print_margins([(c.name, c.item, c.margin) for c in report.cases if c.margin is not None and c.kind == "mutant"],
                  say)
    print_alternative_margins([(c.name, c.item, c.margin) for c in alternatives if c.margin is not None], say)
    if report.diagnoses:
        print_confusion(report.diagnoses, say)
    if report.auto or report.auto_generated:
        _print_auto(report, say)
    if report.ok:
        say(f"audit passed ({report.seconds:.1f} s, seed {report.seed})")
    else:
        wrong = [f"diagnosis of {d.kind} {d.name}" for d in report.diagnoses if d.failed]
        count = f"{len(report.misses)} miss(es)" + (f", {len(wrong)} wrong diagnoses" if wrong else "")
        names = ", ".join([*(f"{c.kind} {c.name}" for c in report.misses), *wrong])
        say(f"audit FAILED: {count}: {names} (seed {report.seed})")


def _print_auto(report: AuditResult, say: Callable[[str], None]) -> None:
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
