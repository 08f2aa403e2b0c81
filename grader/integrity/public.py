"""What is no evidence between two students: code that is public, or that everyone starts from.

- ``common``: the release's starter code (the source notebooks with each solution replaced by
  its stub) and the solution itself (the reference, the source notebooks): what every
  submission starts from, or converges to when it is right.
- ``sources``: the bundle's catalogue (its ports of public tutorials, and the classic mistakes)
  and the ``--known-sources`` folder: code a student may legitimately start from, named, so
  that the report can say "matches public code: ...".
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..assignment.bundle import Bundle
from ..submissions.load import Cell, read_cells
from .fingerprints import definitions, starter


class KnownSourcesError(ValueError):
    """The ``--known-sources`` folder cannot be used; the message names the fix."""


@dataclass(frozen=True)
class Public:
    common: frozenset[int]
    sources: dict[int, tuple[str, ...]]  # fingerprint -> the public files that hold it
    skipped: tuple[str, ...]  # public files that could not be read, with why

    def is_public(self, fingerprint: int) -> bool:
        return fingerprint in self.common or fingerprint in self.sources


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
    for notebook in bundle.assignment.notebooks:
        reference = [Cell(1, bundle.reference_source(notebook))]
        source = bundle.root / f"{notebook}.ipynb"
        cells = list(read_cells(source)) if source.is_file() else []
        stubs = [Cell(c.number, starter(c.source)) for c in cells]
        for code in (*definitions(reference).values(), *definitions(cells).values(), *definitions(stubs).values()):
            common |= code.hashes
    sources: dict[int, set[str]] = defaultdict(set)
    skipped = []
    catalogue = bundle.catalogue_dir
    files = [(p, f"catalogue/{p.relative_to(catalogue)}") for p in sorted(catalogue.rglob("*.py"))]
    if known_sources is not None:
        files += [(p, str(p.relative_to(known_sources))) for p in known_source_files(known_sources)]
    for path, name in files:
        try:
            found = definitions(read_cells(path))
        except (ValueError, OSError) as exc:
            skipped.append(f"{name}: {exc}")
            continue
        for code in found.values():
            for fingerprint in code.hashes - common:
                sources[fingerprint].add(name)
    return Public(frozenset(common), {h: tuple(sorted(names)) for h, names in sources.items()}, tuple(skipped))
