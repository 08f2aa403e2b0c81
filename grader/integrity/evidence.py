"""The class's pairs of students who share work, scored.

Per item, two kinds of evidence, each from 0 to 1:

- **code**: of the fingerprints of the two students' items that are neither public
  (``public``) nor common in the class (held by more than ``common_limit`` students, a tenth:
  what independent students converge to), the share they hold both, each fingerprint weighing
  ``1 / (holders - 1)`` (a copy: all of them; two students who happen to write a line as
  several others do: a little), counted over at least ``MIN_PRINTS`` so that a one-line
  function cannot be strong evidence;
- **behaviour**: both lost points on the item and their code returned the same values on its
  hidden checks. ``1.5 / n`` when ``n`` students share those values (two: 0.75; ten: 0.15), and
  a tenth of that when a known mistake (a catalogue mutant) explains them: a classic mistake
  is made independently. A wrong answer two students share is strong evidence, but one item
  of it alone never flags a pair: two people can slip the same unusual way once.

An item's evidence is the chance that either would say so, ``1 - (1 - code)(1 - behaviour)``;
a pair's strength ``S`` is their sum over the items, and its score ``S / (S + F)``, where ``F``
(``flag_at``) is ``FLAG`` in a class of up to ``SMALL_CLASS`` students and grows by half for
every tenfold past it. A pair is flagged from ``S = F`` (score 0.5): in a small class, one
item whose uncommon code is all shared, the same unusual wrong answers on two items, or the
like. ``benchmarks/bench_integrity.py`` measures what that flags on a class with planted
copies (the README gives the figures).

Everything is indexed for the whole class (a fingerprint or a digest to the students who hold
it): only students who share something are ever paired.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from ..render.words import counted
from .fingerprints import ItemCode
from .public import Public

MIN_PRINTS = 4
EXPLAINED = 0.1  # the weight of a shared wrong output that a known mistake explains
FLAG = 1.0  # the strength from which a pair of a class of up to SMALL_CLASS students is listed
SMALL_CLASS = 40
SHARED_ANSWER = 1.5  # the behaviour evidence of n students who returned the same wrong values: 1.5 / n
LISTED = 0.25  # an item's evidence from which it is named in the pair's row


@dataclass(frozen=True)
class Work:
    """What one student handed in and returned, as the report compares it."""

    student: str
    code: Mapping[str, ItemCode]  # item -> the student's definition
    behaviour: Mapping[str, str] = field(default_factory=dict)  # item -> digest, for items that lost points
    explained: frozenset[str] = frozenset()  # items whose lost points a known mistake explains


@dataclass(frozen=True)
class ItemEvidence:
    item: str
    code: float
    behaviour: float
    sharers: int  # students whose code returned the same wrong values (0: none shared)
    explained: bool  # a known mistake explains those values
    lines_a: tuple[int, ...]  # lines of a's definition that hold shared uncommon code (flagged pairs only)
    lines_b: tuple[int, ...]

    @property
    def strength(self) -> float:
        return 1 - (1 - self.code) * (1 - self.behaviour)


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    strength: float
    items: tuple[ItemEvidence, ...]  # the items with any evidence, strongest first
    flag: float = FLAG  # the strength from which it is listed, in its class (``flag_at``)

    @property
    def score(self) -> float:
        return self.strength / (self.strength + self.flag)

    @property
    def listed(self) -> tuple[ItemEvidence, ...]:
        return tuple(e for e in self.items if e.strength >= LISTED)

    @property
    def evidence(self) -> str:
        """One sentence a person can check; it never accuses."""
        code = [e.item for e in self.listed if e.code >= LISTED]
        wrong = [e for e in self.listed if e.behaviour > 0]
        parts = []
        if code:
            parts.append(f"share uncommon code on {counted(len(code), 'item')} ({', '.join(code)})")
        if wrong:
            known = sum(e.explained for e in wrong)
            text = f"the same wrong outputs on {counted(len(wrong), 'item')} ({', '.join(e.item for e in wrong)})"
            if known:
                text += f", {known} of them a known mistake"
            parts.append(("their code returned " if not code else "") + text)
        if not parts:
            return f"share a little uncommon code or the same wrong outputs on {counted(len(self.items), 'item')}"
        return " and ".join(parts)


def flag_at(students: int) -> float:
    """The strength from which a pair is listed: ``FLAG``, and half a unit more for every tenfold
    of students past ``SMALL_CLASS``, since the pairs that may coincide by chance grow as the
    square of the class (1,000 students: 1.7)."""
    return FLAG + 0.5 * math.log10(max(1.0, students / SMALL_CLASS))


def common_limit(students: int) -> int:
    """How many students may hold a fingerprint before it counts as convergence."""
    return max(4, math.ceil(students / 10))


def pairs(works: Sequence[Work], public: Public) -> list[Pair]:
    """Every pair with some evidence, strongest first; ``flagged`` picks those to report. The
    lines of shared code (``ItemEvidence.lines_a``, ``lines_b``) are found for the flagged
    pairs alone: the page shows no other, and a class of 1,000 has some 10⁵ pairs with a little."""
    limit = common_limit(len(works))
    flag = flag_at(len(works))
    evidence: dict[tuple[int, int], list[ItemEvidence]] = defaultdict(list)
    own_of_item: dict[str, list[set[int]]] = {}
    items = sorted({item for w in works for item in (*w.code, *w.behaviour)})
    for item in items:
        own = [_own_prints(w.code.get(item), public) for w in works]
        holders: dict[int, list[int]] = defaultdict(list)
        for index, prints in enumerate(own):
            for h in prints:
                holders[h].append(index)
        # Held by more than ``limit``: what independent students converge to, no evidence. Any
        # other weighs 1 / (its holders - 1), as rare as it is.
        weight = {h: 1 / max(1, len(who) - 1) for h, who in holders.items() if len(who) <= limit}
        own = own_of_item[item] = [{h for h in prints if h in weight} for prints in own]
        total = [sum(weight[h] for h in prints) for prints in own]
        # What two students share is what both hold: summed as it is enumerated, never as sets.
        shared: dict[tuple[int, int], list[float]] = {}  # (weight, count) of what both hold
        for h, who in holders.items():
            if 2 <= len(who) <= limit:
                rarity = weight[h]
                for key in combinations(who, 2):
                    if (acc := shared.get(key)) is None:
                        shared[key] = [rarity, 1]
                    else:
                        acc[0] += rarity
                        acc[1] += 1
        returned: dict[str, list[int]] = defaultdict(list)
        for index, w in enumerate(works):
            if w.behaviour.get(item):
                returned[w.behaviour[item]].append(index)
        same: dict[tuple[int, int], int] = {}
        for who in returned.values():
            for key in combinations(who, 2):
                same[key] = len(who)
        for i, j in shared.keys() | same.keys():
            acc = shared.get((i, j))
            code = 0.0 if acc is None else _share(acc[0], int(acc[1]), total[i] + total[j] - acc[0],
                                                  len(own[i]) + len(own[j]) - int(acc[1]))
            sharers = same.get((i, j), 0)
            explained = sharers > 0 and (item in works[i].explained or item in works[j].explained)
            behaviour = (SHARED_ANSWER / sharers) * (EXPLAINED if explained else 1.0) if sharers else 0.0
            evidence[(i, j)].append(ItemEvidence(item, code, behaviour, sharers, explained, (), ()))
    found = []
    for (i, j), per_item in evidence.items():
        per_item.sort(key=lambda e: (-e.strength, e.item))
        pair = Pair(works[i].student, works[j].student, sum(e.strength for e in per_item), tuple(per_item), flag)
        if pair.strength >= flag:
            pair = replace(pair, items=tuple(_with_lines(e, works[i], works[j], own_of_item[e.item][i] &
                                                         own_of_item[e.item][j]) for e in per_item))
        found.append(pair)
    found.sort(key=lambda p: (-p.strength, p.a, p.b))
    return found


def flagged(found: Iterable[Pair]) -> list[Pair]:
    return [p for p in found if p.strength >= p.flag]


def clusters(found: Sequence[Pair]) -> list[tuple[str, ...]]:
    """Groups of three or more students joined by flagged pairs, largest first."""
    parent: dict[str, str] = {}

    def root(s: str) -> str:
        while parent.setdefault(s, s) != s:
            s = parent[s]
        return s

    for p in found:
        parent[root(p.a)] = root(p.b)
    groups: dict[str, list[str]] = defaultdict(list)
    for s in parent:
        groups[root(s)].append(s)
    return sorted((tuple(sorted(g)) for g in groups.values() if len(g) >= 3), key=lambda g: (-len(g), g))


def public_matches(work: Work, public: Public) -> dict[str, tuple[str, ...]]:
    """Per item, the public files that most of the student's own code comes from."""
    matches = {}
    for item, code in work.code.items():
        own = code.hashes - public.common
        if not own:
            continue
        counts: dict[str, int] = defaultdict(int)
        for h in own:
            for name in public.sources.get(h, ()):
                counts[name] += 1
        best = [name for name, n in counts.items() if n >= len(own) / 2]
        if best:
            matches[item] = tuple(sorted(best))
    return matches


def _share(shared: float, count: int, union: float, union_count: int) -> float:
    """The weight of the fingerprints two students share among all of theirs (``union``),
    counted over at least ``MIN_PRINTS`` of them."""
    share = 1.0 if count == union_count else min(1.0, shared / union)  # all shared: exactly, whatever the rounding
    return share * min(1.0, union_count / MIN_PRINTS)


def _own_prints(code: ItemCode | None, public: Public) -> set[int]:
    return set() if code is None else {h for h in code.hashes if not public.is_public(h)}


def _with_lines(e: ItemEvidence, a: Work, b: Work, hashes: set[int]) -> ItemEvidence:
    return replace(e, lines_a=_lines(a.code.get(e.item), hashes), lines_b=_lines(b.code.get(e.item), hashes))


def _lines(code: ItemCode | None, hashes: set[int]) -> tuple[int, ...]:
    if code is None or not hashes:
        return ()
    return tuple(sorted({line for h, first, last in code.prints if h in hashes for line in range(first, last + 1)}))
