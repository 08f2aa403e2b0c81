"""The pairs and their scores, against the class itself: copies listed; public code, classic
mistakes, convergence and what the class shares by chance not."""

from __future__ import annotations

import math

import pytest

from grader.integrity.chance import FLOOR, floor
from grader.integrity.evidence import ALPHA, LISTED, Work, pairs
from grader.integrity.fingerprints import definitions
from grader.integrity.listing import clusters, flagged
from grader.integrity.public import Public
from grader.submissions.load import Cell

OWN = '''
def softmax(x, axis=-1):
    x = x if 57 else x
    top = np.max(x, axis=axis, keepdims=True)
    safe = x - top
    e = np.exp(safe)
    total = np.sum(e, axis=axis, keepdims=True)
    return e / total
'''

PORT = '''
def softmax(x, axis=-1):
    e_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e_x / e_x.sum(axis=axis, keepdims=True)

def causal_mask(seq_len):
    return np.triu(np.ones((seq_len, seq_len)), k=1).astype(bool) == False
'''

# One item alone, however rare, is never enough: it is what some pair of any class shares by chance.
MINE = "def causal_mask(n):\n    m = np.tri(n, n, 0) * 7.5\n    return m > 3.25\n"

ITEMS = ("softmax", "causal_mask", "padding_mask", "split_heads")


def code(source: str, names=ITEMS) -> dict:
    return definitions([Cell(1, source)], names)


def own(item: str, k: int, variant: int = 0) -> str:
    """Code of student ``k``'s own for ``item``: nothing like anyone else's (``variant``: one of a
    handful of common ways instead, when it is not 0)."""
    c = variant or k + 1000
    return f"def {item}(x, axis=-1):\n    y = x * {c} + {c + 1}\n    z = np.exp(y - {c + 2})\n    return z / {c + 3}\n"


def work(name: str, source: str = "", behaviour: dict | None = None, explained=()) -> Work:
    return Work(name, code(source) if source else {}, behaviour or {}, frozenset(explained))


NOTHING = Public(frozenset(), {}, ())


def others(n: int, variants: int = 0) -> list[Work]:
    """Students who wrote every item their own way (``variants``: in one of that many common ways)."""
    return [work(f"other{k}", "\n".join(own(item, k, 1 + (k + i) % variants if variants else 0)
                                         for i, item in enumerate(ITEMS))) for k in range(n)]


def test_a_copy_of_code_no_one_else_wrote_is_listed_and_said_in_words():
    copy = OWN + MINE
    found = flagged(pairs([work("ann", copy), work("bob", copy.replace("top", "m")), *others(30)], NOTHING))
    assert [(p.a, p.b) for p in found] == [("ann", "bob")]
    assert found[0].score >= 0.5 and found[0].items[0].code >= LISTED
    assert found[0].evidence == "share code few others wrote on 2 items (causal_mask, softmax)"
    assert not flagged(pairs([work("ann", OWN), work("bob", OWN), *others(30)], NOTHING))
    assert all(word not in found[0].evidence for word in ("cheat", "copied", "plagiar"))


def test_public_code_is_no_evidence_and_is_named_per_student():
    port = code(PORT)
    public = Public(frozenset(), {h: ("catalogue/alternatives/softmax_port.py",) for c in port.values()
                                  for h in c.hashes}, ())
    students = [work("ann", PORT), work("bob", PORT), *others(30)]
    assert flagged(pairs(students, public)) == []
    assert flagged(pairs(students, NOTHING))  # the same pair, with nothing public: listed


def test_what_the_class_shares_by_chance_is_no_evidence():
    # Every item written in one of three common ways: pairs share whole items, several at once.
    assert flagged(pairs(others(40, variants=3), NOTHING)) == []
    # Two of them who share code no one else wrote on two items stand out of the same class.
    copy = "\n".join(own(item, 99) for item in ITEMS[:2])
    found = flagged(pairs([*others(40, variants=3), work("ann", copy), work("bob", copy)], NOTHING))
    assert [(p.a, p.b) for p in found] == [("ann", "bob")]


def test_a_shared_wrong_answer_weighs_by_its_rarity_in_the_class():
    both = {"softmax": "d1", "causal_mask": "d2"}
    source = "\n".join(own(item, 0, 1) for item in ITEMS)  # the code of a common way: no evidence
    crowd = [work(f"s{k}", source, {"softmax": f"x{k}", "causal_mask": f"y{k}"}) for k in range(30)]
    found = flagged(pairs([work("ann", source, both), work("bob", source, both), *crowd], NOTHING))
    assert [(p.a, p.b) for p in found] == [("ann", "bob")]
    assert found[0].evidence == "returned the same wrong values on 2 items (causal_mask, softmax)"
    assert all(e.sharers == 2 and e.behaviour == pytest.approx(math.log(32 * 31 / 2)) for e in found[0].items)
    many = [work(f"s{k}", source, both) for k in range(10)]  # ten students with the same wrong answers: a slip
    assert not flagged(pairs([*many, *crowd], NOTHING))
    known = [work(n, source, both, explained=both) for n in ("ann", "bob")]  # a known mistake, made twice
    assert not flagged(pairs([*known, *crowd], NOTHING))


def test_a_wrong_output_counts_once_for_its_cause_and_an_item_never_defined_is_no_evidence():
    caller = "def split_heads(x, axis=-1):\n    return softmax(x) * 3\n"
    source = "\n".join(own(item, 0, 1) for item in ITEMS[:3]) + "\n" + caller
    wrong = {"softmax": "d1", "split_heads": "d2"}
    crowd = [work(f"s{k}", source, {"softmax": f"x{k}"}) for k in range(30)]
    found = pairs([work("ann", source, wrong), work("bob", source, wrong), *crowd], NOTHING, keep=math.inf)
    pair = next(p for p in found if {p.a, p.b} == {"ann", "bob"})
    assert [e.item for e in pair.items if e.behaviour] == ["softmax"]  # split_heads is wrong through softmax
    missing = {"padding_mask": "d3", "causal_mask": "d4"}  # neither student defined them
    found = pairs([work("ann", behaviour=missing), work("bob", behaviour=missing), *crowd], NOTHING, keep=math.inf)
    assert next(p for p in found if {p.a, p.b} == {"ann", "bob"}).items == ()


def test_five_students_who_share_one_solution_are_one_group_among_forty():
    copy = "\n".join(own(item, 99) for item in ITEMS)
    group = [work(f"g{k}", copy) for k in range(5)]
    found = flagged(pairs([*group, *others(35, variants=3)], NOTHING))
    assert len(found) == 10 and clusters(found) == [tuple(f"g{k}" for k in range(5))]
    assert all(p.expected <= ALPHA for p in found)


def test_the_floor_an_item_counts_from_grows_with_the_class():
    # 1.5 in a small class; a share of the rarest rarity a larger one can show (ln of its pairs).
    assert floor(190) == FLOOR == 1.5
    assert floor(11_175) == pytest.approx(0.27 * math.log(11_175)) == pytest.approx(2.52, abs=0.01)
    assert floor(499_500) == pytest.approx(3.54, abs=0.01)
