"""Which of the class's pairs (``evidence.pairs``) are listed, and how they read: the pairs with
evidence that this class would produce at most ``ALPHA`` of by chance, or that close a triangle
of weaker links or belong to a group; the groups of three or more; the students who link the
two of a pair (the middle of a chain)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from .evidence import ALPHA, GROUP, STRONG, Pair


def flagged(found: Iterable[Pair]) -> list[Pair]:
    """The pairs to list: those this class would produce at most ``ALPHA`` of by chance, and
    those of a triangle of links each of which it would produce at most ``GROUP`` of. Students
    who share one solution dilute each other's rarity (five who share an item are ten pairs of
    the class that share it), but chance does not join three pairs into a triangle."""
    found = list(found)
    loose = {frozenset((p.a, p.b)) for p in found if p.expected <= GROUP and p.items}
    peers: dict[str, set[str]] = defaultdict(set)
    for link in loose:
        a, b = tuple(link)
        peers[a].add(b)
        peers[b].add(a)
    # A pair with no item of evidence (a link of a triangle of three who share nothing, or the
    # release handed in unchanged) is no evidence whatever its score.
    return [p for p in found if p.items and (p.expected <= ALPHA or p.group or frozenset((p.a, p.b)) in loose
                                             and peers[p.a] & peers[p.b])]


def through(pair: Pair, found: Iterable[Pair]) -> tuple[str, ...]:
    """The students a listed pair's two are each listed with: the middle of a chain A -> B -> C
    (each copy dressed again, A and C may share less with each other than with B)."""
    peers: dict[str, set[str]] = defaultdict(set)
    for p in found:
        peers[p.a].add(p.b)
        peers[p.b].add(p.a)
    return tuple(sorted(peers[pair.a] & peers[pair.b]))


def why(pair: Pair, found: Sequence[Pair]) -> str:
    """``pair.evidence``, and the students who link the two, if any."""
    middle = through(pair, found)
    return pair.evidence + (f"; both are also listed with {', '.join(middle)}" if middle else "")


def clusters(found: Sequence[Pair]) -> list[tuple[str, ...]]:
    """Groups of three or more students among the listed pairs ``found``, joined by strong links
    only, largest first: a link of ``STRONG`` or less, or one of a triangle of listed pairs. A
    chain of weak links is no group."""
    parent: dict[str, str] = {}
    peers: dict[str, set[str]] = defaultdict(set)
    for p in found:
        peers[p.a].add(p.b)
        peers[p.b].add(p.a)

    def root(s: str) -> str:
        while parent.setdefault(s, s) != s:
            s = parent[s]
        return s

    for p in found:
        if p.expected <= STRONG or p.group or peers[p.a] & peers[p.b]:
            parent[root(p.a)] = root(p.b)
    groups: dict[str, list[str]] = defaultdict(list)
    for s in parent:
        groups[root(s)].append(s)
    return sorted((tuple(sorted(g)) for g in groups.values() if len(g) >= 3), key=lambda g: (-len(g), g))
