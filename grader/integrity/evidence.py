"""The class's pairs of students who share work, scored against the class itself.

Per item and pair, two kinds of evidence:

- **code**: how rare the fingerprints are that the two students share (``public`` set aside):
  the level (the students of the class who hold a fingerprint) at which they share ``SHARED``
  of them, 3, 8 or 24, the rarest (a copy of code no one else wrote: 2; a way of writing the
  item that a third of the class took: N / 3; a copy shares many fingerprints, where two honest
  students who meet by chance share a few), or the whole item the same token for token, and
  how few hand it in so (``identical_groups``: a copy of a short item shares few fingerprints, all);
- **behaviour**: both lost points on the item and their code returned the same values on its
  hidden checks (``behaviour``), unless a known mistake (a catalogue mutant) explains them, the
  item was never defined, or it calls another item of theirs that lost points too (one cause,
  counted once, on the item that holds it).

Neither is read as it is: each is turned into its **rarity in this class**, ``-ln p``, ``p``
the share of the class's pairs that share as much on that item (a copy of one item in a class
of 1,000, held by no one else: ``ln 499,500 = 13.1``; two students of the third who wrote the
item the same common way: ``ln 9 = 2.2``). The pairs that share *as much* are counted among the
pairs that share nothing rare on the other items (``ELSEWHERE``): in a class where a fifth of
the students copy, the other copies of an item would make it look common to each copy. A
pair's strength ``T`` is the sum over the items of each rarity above the floor (``floor``: 1.5,
or in a larger class 0.27 of the rarest rarity it can show, 3.5 at 1,000 students), less the
mean of the two students' strengths with the whole class (a student who writes every item a
common way, or keeps to one style, shares that with everyone). What the class shares by
chance, the class shows: the strengths of all its pairs are measured, their upper tail fitted
(``Tail``: exponential, from the top ``TAIL`` of the pairs, its scale from their median,
robust to the copies among them, and never steeper than the sum of two items' rarities,
``SCALE_MIN``), and a pair's ``expected`` is how many pairs of this class would be as strong
by chance. A pair is listed when that is at most ``ALPHA``: whatever the class's size and
however strongly its students converge, about ``ALPHA`` honest pairs on the list.
``benchmarks/bench_integrity_calibration.py`` measures it (docs/instructors/integrity.md gives the figures).
The rarities, the floor and the tail are ``chance``'s; the pairs put together here.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from ..records.code import ItemCode
from ..render.words import counted
from .chance import SHARED, at_most, behaviour_rarity, code_rarity, floor, identical_groups, shared_levels, tail
from .public import Public

ALPHA = 0.5  # listed when this class would produce at most this many pairs as strong by chance
GROUP_ITEMS = 2  # items on which the same students alone share code, from which they are a group
GROUP_MOST = 12  # students in such a group, at most, and an eighth of the class (a group of 5 at 40)
GROUP = 2.0  # a link that lists its pair when it closes a triangle of such links (``flagged``)
STRONG = 0.01  # a link that joins two students in one group on its own (``clusters``)
ELSEWHERE = math.log(500)  # an item shared as by 1 pair in 500: rare, for ``pairs`` to measure chance without it
LISTED = math.log(20)  # an item's rarity from which it is named: shared as by 1 pair in 20 of the class


Check = tuple[str, bool]  # a failed hidden check, and whether the code raised on it (or returned)


@dataclass(frozen=True)
class Work:
    """What one student handed in and returned, as the report compares it."""

    student: str
    code: Mapping[str, ItemCode]  # item -> what the student's item runs
    behaviour: Mapping[str, str] = field(default_factory=dict)  # item -> digest, for items that lost points
    explained: frozenset[str] = frozenset()  # items whose lost points a known mistake explains
    failed: Mapping[str, tuple[Check, ...]] = field(default_factory=dict)  # item -> its failed hidden checks


@dataclass(frozen=True)
class ItemEvidence:
    item: str
    code: float  # the rarity of the code they share (0: none)
    behaviour: float  # the rarity of the wrong values they share (0: none, or no evidence)
    sharers: int  # students whose code returned the same wrong values (0: none shared)
    explained: bool  # a known mistake explains those values
    checks: tuple[Check, ...] = ()  # the hidden checks both failed, with the same values (listed pairs only)
    lines_a: tuple[int, ...] = ()  # lines of a's code that hold shared fingerprints (listed pairs only)
    lines_b: tuple[int, ...] = ()

    @property
    def strength(self) -> float:
        return self.code + self.behaviour


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    strength: float
    items: tuple[ItemEvidence, ...]  # the items with any evidence, strongest first
    expected: float  # how many pairs of this class would be as strong by chance
    group: int = 0  # the students who alone share code on ``GROUP_ITEMS`` items, these two among them (0: none)

    @property
    def score(self) -> float:
        """1 - ``expected``: a pair is listed on its own from 0.5; one listed for its group or a
        triangle of links (``flagged``) shows 0.5."""
        return max(0.5, 1.0 - self.expected)

    @property
    def listed(self) -> tuple[ItemEvidence, ...]:
        """The items the pair is listed on: those shared as rarely as ``LISTED``, else every item
        with evidence (a pair of a group or a triangle of weaker links)."""
        return tuple(e for e in self.items if e.strength >= LISTED) or self.items

    @property
    def evidence(self) -> str:
        """One sentence a person can check, strongest item first; it never accuses."""
        code = [e.item for e in self.listed if e.code >= LISTED]
        wrong = [e for e in self.items if e.behaviour >= LISTED]
        parts = []
        if code:
            parts.append(f"share code few others wrote on {counted(len(code), 'item')} ({', '.join(code)})")
        if wrong:
            parts.append(f"returned the same wrong values on {counted(len(wrong), 'item')} "
                         f"({', '.join(e.item for e in wrong)})")
        if self.group:
            parts.append(f"are 2 of {self.group} students who alone share code on several items")
        if not parts:
            return f"share a little uncommon code or the same wrong outputs on {counted(len(self.items), 'item')}"
        return " and ".join(parts)


@dataclass
class _Item:
    """One item across the class: what is needed again for the pairs that are listed."""

    holders: dict[int, int]  # fingerprint -> how many students hold it, those held by two or more
    own: list[set[int]]  # per student, their fingerprints that are not public
    level: np.ndarray  # holders -> the level of rarity it is counted at
    at_most: np.ndarray  # level, column (``SHARED``, then identical) -> how many of ``null_pairs`` share as much
    null_pairs: np.ndarray  # per column of ``at_most``, the pairs it counts among
    behaviour: dict[int, tuple[str, int, float]]  # student -> (digest, sharers, rarity), counted ones
    identical: dict[int, int]  # student -> how many hand in this item the same token for token (``identical_groups``)


def pairs(works: Sequence[Work], public: Public, keep: float = GROUP) -> list[Pair]:
    """The pairs of which this class would produce at most ``keep`` by chance, strongest first
    (``flagged`` picks those to list)."""
    n = len(works)
    if n < 2:
        return []
    total_pairs = n * (n - 1) // 2
    low = floor(total_pairs)
    upper = np.triu_indices(n, 1)
    strength = np.zeros(total_pairs)
    items: dict[str, _Item] = {}
    alone: dict[frozenset[int], set[str]] = defaultdict(set)  # students -> items whose code only they share
    most = min(GROUP_MOST, max(5, n // 8))  # more is a way of writing it that many took, not a group
    reach: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # item -> the pairs that share code, and their levels
    for item in sorted({item for w in works for item in (*w.code, *w.behaviour)}):
        own = [_own_prints(w.code.get(item), public, item) for w in works]
        held: dict[int, list[int]] = defaultdict(list)
        for index, prints in enumerate(own):
            for h in prints:
                held[h].append(index)
        sets = Counter(frozenset(who) for who in held.values() if 3 <= len(who) <= most)
        for students, count in sets.items():
            # Three of whom two hand in the item the same: whoever meets one of a copied pair by
            # chance, on a few fingerprints, meets both; a third who copied shares many.
            twins = len(students) == 3 and len({frozenset(own[s]) for s in students}) < 3
            if count >= SHARED[1 if twins else 0]:
                alone[students].add(item)
        reached, level = shared_levels(held, n, upper, low)
        identical: dict[int, int] = {}
        for who in identical_groups(own, most):
            first, second = (np.asarray(who)[side] for side in np.triu_indices(len(who), 1))
            reached[first * (2 * n - first - 1) // 2 + (second - first - 1), len(SHARED)] = len(who)
            identical.update((index, len(who)) for index in who)
        at = np.flatnonzero(reached.any(axis=1))
        reach[item] = (at, reached[at])
        kept = _behaviour_counted(works, item)
        strength += np.maximum(0.0, behaviour_rarity(kept, n, total_pairs) - low)
        items[item] = _Item({h: len(who) for h, who in held.items() if len(who) >= 2}, own, level,
                            np.zeros((n + 2, len(SHARED) + 1), dtype=np.int64),
                            np.full(len(SHARED) + 1, total_pairs), kept, identical)
    # What pairs share by chance on an item is measured on the pairs that share nothing rare on the
    # other items: the copies of a class (a fifth of its students, in some) share an item's rare
    # code with each other, and counted in, they would make it look common to each other.
    rare = {}
    for item, (at, levels) in reach.items():
        rare[item] = code_rarity(at_most(levels, np.ones(len(at), dtype=bool), n), levels, total_pairs, low) \
            >= ELSEWHERE - low
    elsewhere = np.zeros(total_pairs, dtype=np.int64)
    for item, (at, _) in reach.items():
        elsewhere[at] += rare[item]
    chances = {item: elsewhere[at] - rare[item] == 0 for item, (at, _) in reach.items()}
    for item, (at, levels) in reach.items():
        data = items[item]
        data.at_most = at_most(levels, chances[item], n)
        data.null_pairs = np.full(levels.shape[1], total_pairs - np.count_nonzero(~chances[item]))
        strength[at] += code_rarity(data.at_most, levels, data.null_pairs, low)
    # A student who shares much with everyone (who writes every item a common way, or keeps to one
    # style) shares it by chance with each: the mean of the two students' strengths with the class
    # is set aside.
    mean = (np.bincount(upper[0], strength, n) + np.bincount(upper[1], strength, n)) / (n - 1)
    strength = np.maximum(0.0, strength - (mean[upper[0]] + mean[upper[1]]) / 2)
    fit = tail(strength)
    expected = fit.expected(strength)
    # Students who alone share code on several items are a group, however many of them share it
    # (five who share one solution are ten pairs of the class that share it: each pair's rarity
    # is diluted), for chance does not give the same few students the same code twice.
    grouped = {}
    for students, shared_items in alone.items():
        if len(shared_items) >= GROUP_ITEMS:
            for i, j in combinations(sorted(students), 2):
                grouped[i * (2 * n - i - 1) // 2 + (j - i - 1)] = len(students)
    found = []
    for k in sorted({*np.nonzero(expected <= keep)[0].tolist(), *grouped}):
        i, j = int(upper[0][k]), int(upper[1][k])
        per_item = tuple(sorted((e for item, data in items.items()
                                 if (e := _evidence(item, data, works[i], works[j], i, j, total_pairs)).strength > 0),
                                key=lambda e: (-e.strength, e.item)))
        found.append(Pair(works[i].student, works[j].student, float(strength[k]), per_item, float(expected[k]),
                          grouped.get(k, 0)))
    found.sort(key=lambda p: (-p.strength, p.a, p.b))
    return found


def _behaviour_counted(works: Sequence[Work], item: str) -> dict[int, tuple[str, int, float]]:
    """The students whose wrong values on ``item`` count, with their digest, how many share it,
    and its rarity: the share of the class's pairs that share a digest held as rarely."""
    groups: dict[str, list[int]] = defaultdict(list)
    for index, w in enumerate(works):
        digest = w.behaviour.get(item)
        code = w.code.get(item)
        if not digest or code is None or code.stub:  # never defined, or a stub: nothing it returned is its own
            continue
        if any(w.behaviour.get(other) for other in code.calls):  # one wrong helper, counted on its item
            continue
        groups[digest].append(index)
    total = len(works) * (len(works) - 1) // 2
    sizes = sorted(len(g) for g in groups.values() if len(g) >= 2)
    counted = {}
    for digest, who in groups.items():
        if len(who) < 2:
            continue
        as_rare = sum(s * (s - 1) // 2 for s in sizes if s <= len(who))
        rarity = -math.log(as_rare / total)
        for index in who:
            known = item in works[index].explained
            counted[index] = (digest, len(who), 0.0 if known else rarity)
    return counted


def _evidence(item: str, data: _Item, a: Work, b: Work, i: int, j: int, total_pairs: int) -> ItemEvidence:
    both = {h for h in data.own[i] & data.own[j] if h in data.holders}
    rarest = sorted(data.holders[h] for h in both)
    levels = [int(data.level[rarest[needed - 1]]) if len(rarest) >= needed else 0 for needed in SHARED]
    levels.append(data.identical[i] if i in data.identical and data.own[i] == data.own[j] else 0)
    code = max((-math.log(max(1, data.at_most[level, m]) / data.null_pairs[m]) for m, level in enumerate(levels)
                if level), default=0.0)
    ba, bb = data.behaviour.get(i), data.behaviour.get(j)
    shared = ba is not None and bb is not None and ba[0] == bb[0]
    behaviour = min(ba[2], bb[2]) if shared and ba and bb else 0.0
    explained = shared and (item in a.explained or item in b.explained)
    checks = tuple(a.failed.get(item, ())) if shared else ()  # the same values: the same checks failed
    evidence = ItemEvidence(item, code, behaviour, ba[1] if shared and ba else 0, explained, checks)
    if both:  # the pairs are the ones found: their shared lines are marked
        evidence = replace(evidence, lines_a=_lines(a.code.get(item), both), lines_b=_lines(b.code.get(item), both))
    return evidence


def _own_prints(code: ItemCode | None, public: Public, item: str) -> set[int]:
    return set() if code is None or code.stub else set(code.hashes - public.aside(code, item))


def _lines(code: ItemCode | None, hashes: set[int]) -> tuple[int, ...]:
    if code is None or not hashes:
        return ()
    return tuple(sorted({line for h, first, last in code.prints if h in hashes for line in range(first, last + 1)}))
