"""The pairs and their scores: copies flagged; public code, classic mistakes and convergence not."""

from __future__ import annotations

import pytest

from grader.integrity.evidence import FLAG, Work, clusters, flag_at, flagged, pairs, public_matches
from grader.integrity.fingerprints import definitions
from grader.integrity.public import Public
from grader.submissions.load import Cell

OWN = '''
def softmax(x, axis=-1):
    shape_1 = getattr(x, "shape", None)
    top = np.max(x, axis=axis, keepdims=True)
    safe = x - top
    e = np.exp(safe)
    total = np.sum(e, axis=axis, keepdims=True)
    seen = total is None
    return e / total
'''

PORT = '''
def softmax(x, axis=-1):
    e_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e_x / e_x.sum(axis=axis, keepdims=True)
'''


def code(source: str) -> dict:
    return definitions([Cell(1, source)], ["softmax"])


def work(name: str, source: str | None = None, behaviour: dict | None = None, explained=()) -> Work:
    return Work(name, code(source) if source else {}, behaviour or {}, frozenset(explained))


NOTHING = Public(frozenset(), {}, ())


def others(n: int) -> list[Work]:
    """Students who wrote something of their own, each different."""
    return [work(f"other{k}", f"def softmax(x, axis=-1):\n    return x * {k + 2} + {k + 3}\n") for k in range(n)]


def test_a_copy_of_uncommon_code_is_flagged_and_explained_in_words():
    found = flagged(pairs([work("ann", OWN), work("bob", OWN.replace("top", "m")), *others(3)], NOTHING))
    assert [(p.a, p.b) for p in found] == [("ann", "bob")]
    assert found[0].score >= 0.5 and found[0].items[0].code == 1.0
    assert found[0].evidence == "share uncommon code on 1 item (softmax)"
    assert all(word not in found[0].evidence for word in ("cheat", "copied", "plagiar"))


def test_public_code_is_no_evidence_and_is_named_per_student():
    port = code(PORT)["softmax"]
    public = Public(frozenset(), {h: ("catalogue/alternatives/softmax_port.py",) for h in port.hashes}, ())
    students = [work("ann", PORT), work("bob", PORT)]
    assert flagged(pairs(students, public)) == []
    assert flagged(pairs(students, NOTHING))  # the same pair, with nothing public: flagged
    assert public_matches(students[0], public) == {"softmax": ("catalogue/alternatives/softmax_port.py",)}


def test_what_many_students_wrote_is_convergence_not_evidence():
    students = [work(f"s{k}", OWN) for k in range(6)]  # more than common_limit(6) = 4 hold it
    assert pairs(students, NOTHING) == []
    assert flagged(pairs(students[:2] + others(4), NOTHING))  # two of them alone: evidence


def test_a_shared_wrong_answer_weighs_by_its_rarity_and_one_alone_never_flags():
    two = pairs([work("ann", behaviour={"softmax": "d1"}), work("bob", behaviour={"softmax": "d1"})], NOTHING)
    assert two[0].items[0].behaviour == 0.75 and two[0].strength < FLAG
    both = {"softmax": "d1", "causal_mask": "d2"}
    assert flagged(pairs([work("ann", behaviour=both), work("bob", behaviour=both)], NOTHING))
    crowd = pairs([work(f"s{k}", behaviour=both) for k in range(10)], NOTHING)
    assert crowd and not flagged(crowd)  # ten students with the same wrong answers: a common slip
    known = pairs([work("ann", behaviour=both, explained={"softmax", "causal_mask"}),
                   work("bob", behaviour=both, explained={"softmax", "causal_mask"})], NOTHING)
    assert not flagged(known)  # a known mistake, made twice, weighs little
    assert all(e.explained and e.behaviour == pytest.approx(0.075) for e in known[0].items)
    slips = {"softmax": "d1", "causal_mask": "d2", "padding_mask": "d3"}
    found = flagged(pairs([work("ann", behaviour=slips, explained={"softmax"}), work("bob", behaviour=slips)],
                          NOTHING))
    # The known mistake weighs too little to be named among the evidence.
    assert found[0].evidence == "their code returned the same wrong outputs on 2 items (causal_mask, padding_mask)"


def test_three_students_who_share_work_are_one_cluster():
    group = [work(n, OWN) for n in ("ann", "bob", "cy")]
    found = flagged(pairs(group + others(3), NOTHING))
    assert len(found) == 3 and clusters(found) == [("ann", "bob", "cy")]


def test_a_larger_class_needs_more_evidence():
    # The pairs that may coincide by chance grow as the square of the class.
    assert flag_at(6) == flag_at(40) == FLAG < flag_at(400) < flag_at(1000) < FLAG + 1
    found = pairs([work("ann", OWN), work("bob", OWN), *others(3)], NOTHING)
    assert found[0].flag == FLAG and found[0].strength == pytest.approx(FLAG)  # one item, all shared
    assert found[0].score == pytest.approx(0.5) and flagged(found)
