"""Where a student's code comes from, beside the pairs (neither is evidence between students):

- the instructor's solution handed in: the items whose code holds most of the solution's own
  fingerprints (``public.solution``: names, layout and comments ignored, as between students,
  so that a light rename is still the solution), named when the student does so on more items
  than this class would by chance (``solution_named``): a correct short item is often written
  the solution's way, and the class shows how often;
- the public code a student's item comes from (``public_matches``): the ``--known-sources``
  files only (``public.offered``); the catalogue is set aside but never named, for a mutant is
  the solution with one mistake, and correct code matches it as much as the solution.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from ..records.code import ItemCode
from .evidence import Work
from .public import Public

SOLUTION_SHARE = 0.9  # of an item's solution fingerprints, from which it matches (a small change keeps 0.9)
SOLUTION_PRINTS = 3  # an item's solution needs this many fingerprints of its own to be recognised
SOLUTION_ITEMS = 2  # items matching the solution from which a student is named (one item alike can be chance)
# Students of this class who would match the solution on as many items by chance, at most, to be
# named. Far below the pairs' ``ALPHA``: a whole solution handed in stands orders of magnitude below.
SOLUTION_CHANCE = 0.01
# The other students are counted as if 5 more had handed in, 1 of whom matched the item: a class of
# 3 says little of how often an item is written the solution's way (in classes no one tuned it on,
# 1 item in 3, the short ones most).
PRIOR = (1, 5)


def solution_items(code: Mapping[str, ItemCode], public: Public) -> tuple[str, ...]:
    """The items whose code holds most of the instructor's solution's own fingerprints."""
    return tuple(item for item, written in sorted(code.items()) if not written.stub
                 and any(len(own) >= SOLUTION_PRINTS and len(own & written.hashes) >= SOLUTION_SHARE * len(own)
                         for own in public.solution.get(item, ())))


def solution_named(works: Sequence[Work], public: Public) -> dict[str, tuple[str, ...]]:
    """The students who hand in the solution on at least ``SOLUTION_ITEMS`` items, and on more
    than this class would by chance: each item is matched as often as the other students match
    it (with ``PRIOR``: a small class says little), the items independently, and the student is
    named when the class would hold at most ``SOLUTION_CHANCE`` students matching as many."""
    matched = [set(solution_items(w.code, public)) for w in works]
    held = Counter(item for found in matched for item in found)
    items = sorted(item for item, versions in public.solution.items() if any(len(own) >= SOLUTION_PRINTS
                                                                              for own in versions))
    named = {}
    for work, found in zip(works, matched, strict=True):
        if len(found) < SOLUTION_ITEMS:
            continue
        rates = [(held[item] - (item in found) + PRIOR[0]) / (len(works) - 1 + PRIOR[1]) for item in items]
        if len(works) * _at_least(rates, len(found)) <= SOLUTION_CHANCE:
            named[work.student] = tuple(sorted(found))
    return named


def _at_least(rates: Sequence[float], count: int) -> float:
    """The chance that at least ``count`` of independent events of ``rates`` happen."""
    chance = [1.0]  # chance[k]: exactly k so far
    for rate in rates:
        chance = [a * (1 - rate) + b * rate for a, b in zip([*chance, 0.0], [0.0, *chance], strict=True)]
    return sum(chance[count:])


def public_matches(work: Work, public: Public) -> dict[str, tuple[str, ...]]:
    """Per item, the offered public files that most of the student's own code comes from."""
    matches = {}
    for item, code in work.code.items():
        own = code.hashes - public.common
        if not own or code.stub:
            continue
        counts: dict[str, int] = defaultdict(int)
        for h in own:
            for name in public.sources.get(h, ()):
                # A torch module's port is no source of a NumPy function.
                if name in public.offered and public.for_item(name, item):
                    counts[name] += 1
        best = [name for name, n in counts.items() if n >= len(own) / 2]
        if best:
            matches[item] = tuple(sorted(best))
    return matches
