"""The audit of the diagnosis (``grader.diagnosis.diagnose``): graded as a student, each catalogue mutant
must be named as itself, and nothing correct may be named at all.

* a mutant: its item's diagnoses hold its own id ("self"); any other id named with it is a
  mutant that reproduces it on the compared calls ("equivalent here", said in the table). A
  diagnosis without its own id is an audit failure ("WRONG"), and so is none ("NONE"), unless
  its item answered no call the diagnosis could compare ("no output": it crashed or hung from
  the first check on, and the diagnosis never guesses from silence) or it lost no points (a
  miss of the audit already: there is nothing to diagnose);
* the reference and every alternative: no diagnosis on any item ("FALSE").

``print_confusion`` prints, per item, which mutant was named as which.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..records.results import ItemResult, SubmissionResult


@dataclass(frozen=True)
class DiagnosisCase:
    kind: str  # "mutant", "alternative" or "reference"
    name: str
    item: str  # the mutant's item; for the others, the item that was diagnosed (or "")
    named: tuple[str, ...]  # the catalogue ids the diagnosis named
    verdict: str  # "self", "no output", "survived", "ok" (nothing named on a correct one), "NONE", "WRONG", "FALSE"

    @property
    def failed(self) -> bool:
        return self.verdict in ("NONE", "WRONG", "FALSE")

    @property
    def equivalents(self) -> tuple[str, ...]:
        return tuple(n for n in self.named if n != self.name)


def judge_mutant(name: str, item: str, result: SubmissionResult) -> list[DiagnosisCase]:
    own = result.item(item)
    named = tuple(d.mistake for d in own.diagnoses)
    if name in named:
        verdict = "self"
    elif own.earned >= own.points:
        verdict = "survived"  # nothing to diagnose: the audit's table already says it is a miss
    elif named:
        verdict = "WRONG"
    else:
        verdict = "no output" if _silent(own) else "NONE"
    cases = [DiagnosisCase("mutant", name, item, named, verdict)]
    cases += [DiagnosisCase("mutant", name, other.name, tuple(d.mistake for d in other.diagnoses), "WRONG")
              for other in result.items if other.name != item and other.diagnoses]
    return cases


def judge_correct(kind: str, name: str, result: SubmissionResult) -> list[DiagnosisCase]:
    """A submission that must get no diagnosis anywhere."""
    wrong = [DiagnosisCase(kind, name, item.name, tuple(d.mistake for d in item.diagnoses), "FALSE")
             for item in result.items if item.diagnoses]
    return wrong or [DiagnosisCase(kind, name, "", (), "ok")]


def _silent(item: ItemResult) -> bool:
    """The item stopped (a crash, the time limit) before any check passed: nothing to compare."""
    return item.error is not None and not any(c.passed for c in item.checks)


def print_confusion(cases: Sequence[DiagnosisCase], say: Callable[[str], None]) -> None:
    """Per item, a mutant per row and the mutants it was named as in the columns (numbered as
    the rows): ``#`` itself, ``=`` an equivalent, ``x`` a wrong one; then the totals."""
    mutants = [c for c in cases if c.kind == "mutant"]
    items = list(dict.fromkeys(c.item for c in mutants))
    say("")
    say("diagnosis: each mutant graded as a student, named as (# itself, = equivalent here, x wrong)")
    for item in items:
        rows = [c for c in mutants if c.item == item]
        names = list(dict.fromkeys(c.name for c in rows))
        width = max(len(n) for n in names)
        say(f"  {item}")
        say(f"    {'':>2}  {'':<{width}}  " + " ".join(f"{k % 100:>2}" for k in range(1, len(names) + 1)))
        for row, case in enumerate(rows, start=1):
            cells = []
            for name in names:
                mark = "#" if name == case.name and name in case.named else \
                    ("=" if name in case.named and case.verdict == "self" else ("x" if name in case.named else "."))
                cells.append(f"{mark:>2}")
            extra = "" if case.verdict == "self" else f"  {case.verdict}"
            outside = [n for n in case.named if n not in names]
            if outside:
                extra += f" (named as {', '.join(outside)})"
            say(f"    {row:>2}  {case.name:<{width}}  " + " ".join(cells) + extra)
    total = len({c.name for c in mutants})
    selves = [c for c in mutants if c.verdict == "self"]
    shared = [c for c in selves if c.equivalents]
    silent = [c for c in mutants if c.verdict == "no output"]
    wrong = [c for c in cases if c.failed]
    correct = [c for c in cases if c.kind != "mutant"]
    pairs = ", ".join(c.name + " = " + "/".join(c.equivalents) for c in shared) or "none"
    say(f"diagnosis: {len(selves)}/{total} mutants named as themselves ({len(shared)} together with an "
        f"equivalent here: {pairs})"
        + (f"; {len(silent)} with no output to compare: {', '.join(c.name for c in silent)}" if silent else ""))
    false = [c for c in correct if c.verdict == "FALSE"]
    named = {c.name for c in correct}
    falsely = ", ".join(f"{c.name} on {c.item} as " + "/".join(c.named) for c in false)
    say(f"diagnosis: {len(named) - len({c.name for c in false})}/{len(named)} correct or blank submissions "
        "(reference, stubs, alternatives) named as no mistake" + (f"; FALSE: {falsely}" if false else ""))
    if wrong:
        say("diagnosis FAILED: " + ", ".join(f"{c.kind} {c.name} ({c.verdict} on {c.item or 'its item'})"
                                             for c in wrong))
