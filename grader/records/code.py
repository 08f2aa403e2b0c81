"""An item's code as the report compares it, and its JSON form: import-light (no numpy, no
``ast``), for the result that carries it from the worker (``grader.records.results``) to the report."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

Print = tuple[int, int, int]  # (hash, first line, last line) of the code it covers, 1-based in the definition


@dataclass(frozen=True)
class ItemCode:
    """What an item runs, as the student wrote it: its definition (a ``def`` or ``class``, or
    the one a name is bound to), then every helper of the student's it reaches; and its
    fingerprints, lines counted in ``source``."""

    name: str
    source: str
    where: str  # the cell, as the student sees it
    prints: tuple[Print, ...]
    calls: frozenset[str] = frozenset()  # the other graded items it calls
    stub: bool = False  # the release's stub, or one like it: nothing the student wrote

    @cached_property  # the report asks for each item's several times
    def hashes(self) -> frozenset[int]:
        return frozenset(h for h, _, _ in self.prints)

    def to_json(self) -> dict[str, Any]:
        # Plain lists of ints and strings: what crosses from a worker is never pickled.
        return {"name": self.name, "source": self.source, "where": self.where,
                "prints": [list(p) for p in self.prints], "calls": sorted(self.calls),
                **({"stub": True} if self.stub else {})}  # a student's own code sends what it did before

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemCode:
        return cls(str(data["name"]), str(data["source"]), str(data["where"]),
                   tuple((int(h), int(first), int(last)) for h, first, last in data["prints"]),
                   frozenset(str(c) for c in data["calls"]), data.get("stub") is True)
