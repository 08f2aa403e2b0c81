"""What is no evidence between two students: code that is public, or that everyone starts from.

- ``common``: the release's starter code (the source notebooks with each solution replaced by
  its stub) and the solution itself (the reference, the source notebooks): what every
  submission starts from, or converges to when it is right.
- ``solution``: per item, the lines of the instructor's solution that the starter code does not
  hold, as written (names and comments; docstrings aside, as the release gives its own): a
  student whose item holds most of them handed in the solution itself, which an honest
  student's own names, layout and comments do not reproduce;
- ``sources``: the bundle's catalogue (its ports of public tutorials, and the classic mistakes)
  and the ``--known-sources`` folder (definitions and top-level code alike): code a student
  may legitimately start from, named, so that the report can say "matches public code: ..."
  for the item the file is for (its ``# item:`` line, or the items it defines).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..assignment.bundle import Bundle
from ..submissions.load import Cell, read_cells
from .fingerprints import ItemCode, definitions, starter, top_level


class KnownSourcesError(ValueError):
    """The ``--known-sources`` folder cannot be used; the message names the fix."""


@dataclass(frozen=True)
class Public:
    common: frozenset[int]
    sources: dict[int, tuple[str, ...]]  # fingerprint -> the public files that hold it
    skipped: tuple[str, ...]  # public files that could not be read, with why
    solution: Mapping[str, frozenset[str]] = field(default_factory=dict)  # item -> its solution's own lines
    meant: Mapping[str, frozenset[str]] = field(default_factory=dict)  # public file -> the items it is for (none: any)

    def for_item(self, name: str, item: str) -> bool:
        """Whether public file ``name`` is for ``item`` (a file that names no item is for any)."""
        return not self.meant.get(name) or item in self.meant[name]

    def aside(self, code: ItemCode, item: str) -> set[int]:
        """The fingerprints of ``code`` (what a student's ``item`` runs) that are public in
        context: the starter code's and the solution's; those of a public file for ``item``; and
        a passage of at least ``CONTEXT`` fingerprints in a row that one public file holds,
        whatever it is for (a tutorial's helper ported into another item). A short
        token run that a public file for another item also holds is the student's own."""
        found: set[int] = set()
        runs: dict[str, list[int]] = defaultdict(list)  # public file -> its run of fingerprints going on
        last: dict[str, int] = {}  # public file -> where its run stands
        at = 0
        for h, _, _ in code.prints:
            if h in self.common:  # set aside, and it breaks no run: the starter code is around every passage
                found.add(h)
                continue
            at += 1
            for name in self.sources.get(h, ()):
                if self.for_item(name, item):
                    found.add(h)
                    continue
                if last.get(name) != at - 1:
                    _close(runs, name, found)
                runs[name].append(h)
                last[name] = at
        for name in list(runs):
            _close(runs, name, found)
        return found


def known_source_files(folder: Path) -> list[Path]:
    """The ``.py`` and ``.ipynb`` files under ``folder``; ``KnownSourcesError`` when there is none."""
    folder = Path(folder)
    if not folder.is_dir():
        kind = "a file" if folder.exists() else "not found"
        raise KnownSourcesError(f"--known-sources {folder}: {kind}; give a folder of public code (.py, .ipynb)")
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".py", ".ipynb") and p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    if not files:
        raise KnownSourcesError(f"--known-sources {folder}: no .py or .ipynb file in it; give a folder of public code")
    return files


def public_code(bundle: Bundle, known_sources: Path | None = None) -> Public:
    common: set[int] = set()
    solution: dict[str, frozenset[str]] = {}
    for notebook in bundle.assignment.notebooks:
        reference = [Cell(1, bundle.reference_source(notebook))]
        source = bundle.root / f"{notebook}.ipynb"
        cells = list(read_cells(source)) if source.is_file() else []
        stubs = [Cell(c.number, starter(c.source)) for c in cells]
        given = set().union(*(solution_lines(c.source) for c in stubs))
        names = [item.name for item in bundle.assignment.items_of(notebook)]
        for name, code in (*definitions(reference, names).items(), *definitions(cells, names).items()):
            solution[name] = solution.get(name, frozenset()) | (solution_lines(code.source) - given)
        for code in (*definitions(reference).values(), *definitions(cells).values(), *definitions(stubs).values()):
            common |= code.hashes
    sources: dict[int, set[str]] = defaultdict(set)
    skipped = []
    catalogue = bundle.catalogue_dir
    files = [(p, f"catalogue/{p.relative_to(catalogue)}") for p in sorted(catalogue.rglob("*.py"))]
    if known_sources is not None:
        files += [(p, str(p.relative_to(known_sources))) for p in known_source_files(known_sources)]
    graded = {item.name for item in bundle.assignment.items}
    meant: dict[str, frozenset[str]] = {}
    for path, name in files:
        try:
            text = read_cells(path)
        except (ValueError, OSError) as exc:
            skipped.append(f"{name}: {exc}")
            continue
        found = definitions(text)
        # A tutorial written as top-level code protects its porters as much as one of functions.
        for fingerprint in (set().union(*(code.hashes for code in found.values())) | top_level(text)) - common:
            sources[fingerprint].add(name)
        tagged = {m.group(1) for c in text for m in _ITEM.finditer(c.source)} & graded
        meant[name] = frozenset(tagged or found.keys() & graded)
    return Public(frozenset(common), {h: tuple(sorted(names)) for h, names in sources.items()}, tuple(skipped),
                  solution, meant)


_ITEM = re.compile(r"^# item: (\w+)", re.M)
CONTEXT = 3  # fingerprints in a row (about ten tokens) from a public file for another item, to set them aside


def _close(runs: dict[str, list[int]], name: str, found: set[int]) -> None:
    run = runs.pop(name, [])
    if len(run) >= CONTEXT:
        found.update(run)


SOLUTION_LINE = 8  # characters: shorter lines (``else:``, ``return x``) anyone writes alike
SOLUTION_SHARE = 0.6  # of an item's solution lines, from which the item matches the solution
SOLUTION_ITEMS = 2  # items matching the solution from which a student is named


def solution_lines(source: str) -> frozenset[str]:
    """The lines of ``source`` as written (comments included), each stripped of its indentation,
    but short ones and docstrings (the release gives its own, and students keep them)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    docstrings = {line for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                       ast.ClassDef, ast.Module))
                  and node.body and isinstance(first := node.body[0], ast.Expr)
                  and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
                  for line in range(first.lineno, (first.end_lineno or first.lineno) + 1)}
    return frozenset(line for number, raw in enumerate(source.splitlines(), start=1)
                     if number not in docstrings and len(line := raw.strip()) >= SOLUTION_LINE)


def solution_items(code: Mapping[str, ItemCode], public: Public) -> tuple[str, ...]:
    """The items whose code holds most of the instructor's solution's own lines, as written."""
    found = []
    for item, written in sorted(code.items()):
        lines = public.solution.get(item, frozenset())
        if len(lines) < 3:
            continue
        # Every line of ``solution_lines`` is one of these: most items fall short without parsing them
        # (the parse costs a class of 1,000 seconds, in the run's main process after the grading).
        if len(lines & {raw.strip() for raw in written.source.splitlines()}) < SOLUTION_SHARE * len(lines):
            continue
        if len(lines & solution_lines(written.source)) >= SOLUTION_SHARE * len(lines):
            found.append(item)
    return tuple(found)
