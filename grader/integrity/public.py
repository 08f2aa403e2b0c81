"""What is no evidence between two students: code that is public, or that everyone starts from.

- ``common``: the release's starter code (the source notebooks with each solution replaced by
  its stub) and the solution itself (the reference, the source notebooks): what every
  submission starts from, or converges to when it is right.
- ``solution``: per item, the fingerprints of the instructor's solution that the starter code
  does not hold (names, layout and comments ignored, as between students): ``origins`` names
  the students who hand in the solution on more items than the class does by chance;
- ``sources``: the bundle's catalogue (its ports of public tutorials, and the classic mistakes)
  and the ``--known-sources`` folder (definitions and top-level code alike): code a student
  may legitimately start from, set aside for the item the file is for (its ``# item:`` line, or
  the items it defines). Only the ``--known-sources`` files are ``offered``, so that the report
  can say "matches public code: ...": a catalogue mutant is the solution with a classic mistake,
  and correct code matches it as much as the solution.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..assignment.bundle import Bundle
from ..records.code import ItemCode
from ..submissions.load import Cell, read_cells
from .fingerprints import definitions, top_level


class KnownSourcesError(ValueError):
    """The ``--known-sources`` folder cannot be used; the message names the fix."""


@dataclass(frozen=True)
class Public:
    common: frozenset[int]
    sources: dict[int, tuple[str, ...]]  # fingerprint -> the public files that hold it
    skipped: tuple[str, ...]  # public files that could not be read, with why
    # item -> the own fingerprints of each version of its solution (the reference's, the source notebook's)
    solution: Mapping[str, tuple[frozenset[int], ...]] = field(default_factory=dict)
    meant: Mapping[str, frozenset[str]] = field(default_factory=dict)  # public file -> the items it is for (none: any)
    offered: frozenset[str] = frozenset()  # the public files a student's code may be said to match

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
    solution: dict[str, tuple[frozenset[int], ...]] = {}
    for notebook in bundle.assignment.notebooks:
        reference = [Cell(1, bundle.reference_source(notebook))]
        source = bundle.root / f"{notebook}.ipynb"
        cells = list(read_cells(source)) if source.is_file() else []
        stubs = [Cell(c.number, starter(c.source)) for c in cells]
        given = set().union(*(code.hashes for code in definitions(stubs).values()))
        names = [item.name for item in bundle.assignment.items_of(notebook)]
        for name, code in (*definitions(reference, names).items(), *definitions(cells, names).items()):
            if code.hashes - given not in solution.get(name, ()):
                solution[name] = (*solution.get(name, ()), frozenset(code.hashes - given))
        for code in (*definitions(reference).values(), *definitions(cells).values(), *definitions(stubs).values()):
            common |= code.hashes
    sources: dict[int, set[str]] = defaultdict(set)
    skipped = []
    catalogue = bundle.catalogue_dir
    files = [(p, f"catalogue/{p.relative_to(catalogue)}") for p in sorted(catalogue.rglob("*.py"))]
    offered = []
    if known_sources is not None:
        offered = [(p, str(p.relative_to(known_sources))) for p in known_source_files(known_sources)]
    graded = {item.name for item in bundle.assignment.items}
    meant: dict[str, frozenset[str]] = {}
    for path, name in files + offered:
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
                  solution, meant, frozenset(name for _, name in offered))


_ITEM = re.compile(r"^# item: (\w+)", re.M)
CONTEXT = 3  # fingerprints in a row (about ten tokens) from a public file for another item, to set them aside


def _close(runs: dict[str, list[int]], name: str, found: set[int]) -> None:
    run = runs.pop(name, [])
    if len(run) >= CONTEXT:
        found.update(run)


_SOLUTION = re.compile(r"^[ \t]*### BEGIN SOLUTION.*?^[ \t]*### END SOLUTION[^\n]*$", re.M | re.S)


def starter(source: str) -> str:
    """A source notebook's cell as the release gives it: each solution replaced by the stub."""
    return _SOLUTION.sub(lambda m: m.group(0)[:len(m.group(0)) - len(m.group(0).lstrip())]
                         + "raise NotImplementedError()", source)
