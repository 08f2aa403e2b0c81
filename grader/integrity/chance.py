"""How rare what two students share is in this class, and how many pairs would share as much by
chance: the levels of rarity at which pairs share fingerprints (``shared_levels``), the rarity of
code and of the same wrong values (``code_rarity``, ``behaviour_rarity``), the floor below which
a rarity counts for nothing (``floor``), and the fitted tail of the class's pair strengths
(``tail``). ``grader.integrity.evidence.pairs`` puts them together; its docstring says why.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

TAIL = 0.1  # the share of the class's pairs whose strengths the tail is fitted on
TAIL_MIN = 10  # ... and at least this many pairs
# The tail's scale, at least: one item's rarity falls as e^-x, and an honest pair's strength is a
# sum of a few (two: (1 + x) e^-x, which falls as e^(-x / 1.3) where pairs are listed, x 5 to 10).
# A small class's top tenth of pairs is too few to show that on its own.
SCALE_MIN = 1.3
# Fingerprints two students share at a level of rarity for an item to count at that level (one
# column of levels each; ``identical_groups`` adds the last): a copy shares many, where two honest
# students who meet by chance share a few, and a pair is as rare as its rarest column.
SHARED = (3, 8, 24)
# The rarity an item is counted from (``floor``): what 1 pair in 4.5 of the class shares is no
# evidence, and in a larger class, a share of the rarest rarity it can show (``ln`` of its pairs):
# the more pairs, the more of them meet by chance on some item, and an honest pair's strength
# is a sum of such meetings, where a copy's is a few items as rare as the class allows.
FLOOR = 1.5
FLOOR_SHARE = 0.27
IDENTICAL = 4  # fingerprints, at least, of an item that two students share token for token to count as one


def floor(total_pairs: int) -> float:
    """The rarity from which an item counts in a class of ``total_pairs`` pairs (``FLOOR``)."""
    return max(FLOOR, FLOOR_SHARE * math.log(max(1, total_pairs)))


def shared_levels(held: Mapping[int, list[int]], n: int, upper: tuple[np.ndarray, np.ndarray], low: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, for each count of ``SHARED``, the rarest level at which the two share that
    many fingerprints (0: none, or only at a level too common to count): the fingerprints are
    taken rarest first, a level at a time (each up to a quarter more holders than the last),
    and added up as a students-by-students matrix product. Also the level of each count of
    holders."""
    shared = sorted((len(who), h) for h, who in held.items() if len(who) >= 2)
    level = np.zeros(n + 1, dtype=np.int64)
    reached = np.zeros((len(upper[0]), len(SHARED) + 1), dtype=np.int64)  # the last: ``identical_groups``'s
    count = np.zeros((n, n), dtype=np.float32)
    k = 0
    while k < len(shared):
        top = min(n, max(shared[k][0], int(shared[k][0] * 1.25)))
        stop = k
        while stop < len(shared) and shared[stop][0] <= top:
            stop += 1
        matrix = np.zeros((n, stop - k), dtype=np.float32)
        for column, (_, h) in enumerate(shared[k:stop]):
            matrix[held[h], column] = 1.0
        count += matrix @ matrix.T
        pair_count = count[upper]
        for m, needed in enumerate(SHARED):
            reached[(reached[:, m] == 0) & (pair_count >= needed), m] = top
        level[shared[k][0]:top + 1] = top
        k = stop
        if np.count_nonzero(reached[:, 0]) > math.exp(-low) * len(reached):
            break  # what more pairs than that share counts for nothing (``floor``): the common levels cost most
    return reached, level


def at_most(levels: np.ndarray, chance: np.ndarray, n: int) -> np.ndarray:
    """Per level and per count of ``SHARED``, how many pairs of ``chance`` share that many
    fingerprints at that level or a rarer one."""
    kept = levels[chance]
    return np.stack([np.cumsum(np.bincount(np.where(kept[:, m] == 0, n + 1, kept[:, m]), minlength=n + 2))
                     for m in range(levels.shape[1])], axis=1)  # 0, none, counted past every level


def code_rarity(at_most: np.ndarray, levels: np.ndarray, null_pairs: np.ndarray | int, low: float) -> np.ndarray:
    """Each pair's rarity above ``low`` (``floor``): -ln of the share of the ``null_pairs`` that share as
    many fingerprints as rare, the count of ``SHARED`` that makes it rarest."""
    rarity = np.zeros(len(levels))
    for m in range(levels.shape[1]):
        reached = levels[:, m] > 0
        rarity[reached] = np.maximum(rarity[reached], -np.log(np.maximum(at_most[levels[reached, m], m], 1)
                                                              / np.broadcast_to(null_pairs, levels.shape[1:])[m]))
    return np.maximum(0.0, rarity - low)


def identical_groups(own: Sequence[set[int]], most: int) -> list[list[int]]:
    """The groups of at most ``most`` students whose code for an item is the same token for token
    (the same fingerprints, at least ``IDENTICAL`` of them). Honest students who take one common
    way share it with many; a copy of a student's own code is held by the two alone, however
    common each of its fingerprints is (a column of its own in ``pairs``: how many pairs of the
    class hand the item in the same, as few students)."""
    groups: dict[frozenset[int], list[int]] = defaultdict(list)
    for index, prints in enumerate(own):
        if len(prints) >= IDENTICAL:
            groups[frozenset(prints)].append(index)
    return [who for who in groups.values() if 2 <= len(who) <= most]


def behaviour_rarity(counted: Mapping[int, tuple[str, int, float]], n: int, total_pairs: int) -> np.ndarray:
    out = np.zeros(total_pairs)
    groups: dict[str, list[int]] = defaultdict(list)
    for index, (digest, _, _) in counted.items():
        groups[digest].append(index)
    for who in groups.values():
        who.sort()
        a, b = np.triu_indices(len(who), 1)
        i, j = np.asarray(who)[a], np.asarray(who)[b]
        rarity = np.minimum([counted[x][2] for x in i], [counted[x][2] for x in j])
        out[i * (2 * n - i - 1) // 2 + (j - i - 1)] = rarity
    return out


@dataclass(frozen=True)
class Tail:
    """The upper tail of the class's pair strengths: ``count`` pairs above ``start``, and
    beyond it, ``count * exp(-(t - start) / scale)``."""

    start: float
    scale: float
    count: int

    def expected(self, strength: np.ndarray) -> np.ndarray:
        return self.count * np.exp(-(strength - self.start) / self.scale)


def tail(strengths: np.ndarray) -> Tail:
    count = min(len(strengths) - 1, max(TAIL_MIN, math.ceil(TAIL * len(strengths))))
    if count < 1:
        return Tail(0.0, 1.0, 1)
    top = np.partition(strengths, len(strengths) - count - 1)[len(strengths) - count - 1:]
    start = float(top.min())
    excess = np.sort(top)[1:] - start
    # The median, not the mean: the copies among the top pairs do not stretch the tail.
    return Tail(start, max(SCALE_MIN, float(np.median(excess)) / math.log(2)), count)
