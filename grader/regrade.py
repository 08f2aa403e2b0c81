"""A regrade compared with the run it replaces: when ``OUT`` already holds an earlier run,
the new run reads its points first (``results.json``, else ``grades.csv``; from the former
also each student's seconds, which order the regrade: slowest first), then writes
``changes.csv`` (student, old, new, difference, and the items and written answers whose points
changed) and says in one line how many students changed. A regrade with a new seed and the same checks must
change nobody: the line says so, since that is the guarantee an instructor wants."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from .assignment.bundle import Bundle
from .records.results import RunInfo, SubmissionResult
from .render.csv_cells import cell_text, csv_text
from .render.words import fmt_points

CHANGES = "changes.csv"
COLUMNS = ["student", "old", "new", "difference", "items"]
# Points are sums of the YAML's check points: anything below this is rounding, not a change.
EPSILON = 1e-9


@dataclass(frozen=True)
class Points:
    score: float
    items: tuple[tuple[str, float], ...]  # (item or written question, points earned): graded answers only


@dataclass(frozen=True)
class Previous:
    """What an earlier run in OUT gave each student."""

    students: dict[str, Points]
    seed: int | None  # None when only its grades.csv was there
    seconds: dict[str, float] = field(default_factory=dict)  # what each student took (results.json only)


@dataclass(frozen=True)
class Change:
    student: str
    old: float | None  # None: not in the earlier run
    new: float | None  # None: not in this run
    items: tuple[tuple[str, float], ...]  # (item or written question, new - old) for each whose points moved

    @property
    def difference(self) -> float | None:
        return None if self.old is None or self.new is None else self.new - self.old

    def line(self) -> str:
        if self.old is None:
            return f"{self.student}: new in this run, {fmt_points(self.new or 0.0)}"
        if self.new is None:
            return f"{self.student}: not in this run (had {fmt_points(self.old)})"
        moved = ", ".join(f"{item} {_signed(d)}" for item, d in self.items)
        return f"{self.student}: {fmt_points(self.old)} -> {fmt_points(self.new)} ({_signed(self.new - self.old)})" + (
            f": {moved}" if moved else "")


@dataclass(frozen=True)
class Regrade:
    students: int  # in this run
    changes: tuple[Change, ...]  # sorted by student
    previous_seed: int | None = None
    seed: int | None = None

    def headline(self) -> str:
        moved = [c for c in self.changes if c.difference is not None]
        others = len(self.changes) - len(moved)
        extra = f" ({others} not in both runs)" if others else ""
        if self.students == sum(1 for c in self.changes if c.old is None):  # every one of this run is new
            return f"regrade: nothing to compare: no student is in both runs{extra}"
        if not moved:
            seeds = (f" (seed {self.previous_seed}, now {self.seed})"
                     if self.previous_seed is not None and self.seed is not None else "")
            who = "the 1 student has" if self.students == 1 else f"all {self.students} students have"
            return f"regrade: no change: {who} the points of the earlier run{seeds}{extra}"
        largest = max(moved, key=lambda c: (abs(c.difference or 0.0), c.student))
        return (f"regrade: {len(moved)} of {self.students} students changed, the largest by "
                f"{_signed(largest.difference or 0.0)}{extra}")

    def lines(self) -> list[str]:
        """The summary's lines: the headline, then each change (written to changes.csv too)."""
        return [self.headline(), *(f"  {change.line()}" for change in self.changes)]


def _signed(value: float) -> str:
    return f"{'+' if value >= 0 else '-'}{fmt_points(abs(value))}"


def read_previous(out_dir: Path) -> Previous | None:
    """The earlier run in ``out_dir``, or None when there is none (or none that can be read:
    a run is never stopped by the output it replaces)."""
    try:
        if (out_dir / "results.json").is_file():
            data = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
            students = {s["student"]: Points(float(s["score"]), (
                *((i["name"], float(i["earned"])) for i in s["items"]),
                *((w["question"], float(w["earned"])) for w in s.get("written", ()) if w["earned"] is not None)))
                for s in data["students"]}
            # Only the order of the regrade hangs on these: one that is not a number is left out.
            seconds = {s["student"]: float(s["seconds"]) for s in data["students"]
                       if isinstance(s.get("seconds"), (int, float))}
            return Previous(students, data.get("run", {}).get("seed"), seconds)
        if (out_dir / "grades.csv").is_file():
            with open(out_dir / "grades.csv", newline="", encoding="utf-8") as handle:
                reader = csv.reader(handle)
                header = [cell_text(name) for name in next(reader)]
                items = [name for name in header[3:] if name != "late"]
                # A written answer's cell is empty until a person has graded it.
                students = {cell_text(row[0]): Points(float(row[1]), tuple((name, float(value)) for name, value
                                                                 in zip(items, row[3:3 + len(items)], strict=True)
                                                                 if value != ""))
                            for row in reader if row}
            return Previous(students, None)
    except (OSError, ValueError, KeyError, TypeError, StopIteration, IndexError):
        return None
    return None


def compare(previous: Previous, current: dict[str, Points], seed: int | None = None) -> Regrade:
    changes = []
    for student in sorted(set(previous.students) | set(current)):
        old, new = previous.students.get(student), current.get(student)
        if old is None or new is None:
            changes.append(Change(student, None if old is None else old.score,
                                  None if new is None else new.score, ()))
            continue
        # An answer graded in one run only moved from or to 0: ungraded, it counts nothing.
        before, after = dict(old.items), dict(new.items)
        names = [*after, *(name for name in before if name not in after)]
        moved = tuple((name, after.get(name, 0.0) - before.get(name, 0.0)) for name in names
                      if abs(after.get(name, 0.0) - before.get(name, 0.0)) > EPSILON)
        if moved or abs(new.score - old.score) > EPSILON:
            changes.append(Change(student, old.score, new.score, moved))
    return Regrade(len(current), tuple(changes), previous.seed, seed)


def write_changes(regrade: Regrade, path: Path) -> None:
    rows = [[c.student, "" if c.old is None else fmt_points(c.old), "" if c.new is None else fmt_points(c.new),
             "" if c.difference is None else _signed(c.difference),
             "; ".join(f"{item} {_signed(d)}" for item, d in c.items)] for c in regrade.changes]
    path.write_text(csv_text([COLUMNS, *rows]), encoding="utf-8", newline="")


class Comparison:
    """The stage that compares a run with ``previous`` as its results stream in, and writes
    ``changes.csv`` into the run's folder when it closes (before the class report, which
    shows the same list)."""

    def __init__(self, previous: Previous, out_dir: Path) -> None:
        self.previous = previous
        self.path = out_dir / CHANGES
        self.current: dict[str, Points] = {}
        self.seed: int | None = None
        self.regrade: Regrade | None = None

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.seed = run.seed

    def add(self, result: SubmissionResult) -> None:
        self.current[result.student] = Points(result.score, (*((i.name, i.earned) for i in result.items),
                                                             *result.written_earned.items()))

    def close(self) -> None:
        self.regrade = compare(self.previous, self.current, self.seed)
        write_changes(self.regrade, self.path)


def read_regrade(out_dir: Path, students: int) -> Regrade | None:
    """The regrade that ``out_dir``'s changes.csv records (this run of ``students``), or None
    when the run replaced no earlier one: what the class report shows."""
    path = out_dir / CHANGES
    if not path.is_file():
        return None
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))

    def number(text: str) -> float | None:
        return float(text) if text else None

    def moved(text: str) -> tuple[tuple[str, float], ...]:
        return tuple((name, float(value)) for name, value in
                     (part.rsplit(" ", 1) for part in text.split("; ") if part))

    return Regrade(students, tuple(Change(cell_text(r["student"]), number(r["old"]), number(r["new"]),
                                          moved(cell_text(r["items"])))
                                   for r in rows))
