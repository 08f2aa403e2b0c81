"""Whole classes, built as ``benchmarks/integrity_converging.py`` builds them (students who
converge strongly, copies dressed as a student would dress them), analysed as the report
analyses them (the files read and fingerprinted, the class scored; no grading)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import integrity_class
from benchmarks.integrity_converging import KINDS, build
from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.integrity.evidence import Pair, Work, pairs
from grader.integrity.fingerprints import definitions
from grader.integrity.listing import clusters, flagged, why
from grader.integrity.origins import solution_named
from grader.integrity.public import public_code
from grader.submissions.load import read_cells

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
PUBLIC = public_code(BUNDLE)


def works(class_dir: Path) -> list[Work]:
    out = []
    for folder in sorted(class_dir.iterdir()):
        code = {}
        for notebook in BUNDLE.assignment.notebooks:
            names = [item.name for item in BUNDLE.assignment.items_of(notebook)]
            code.update(definitions(read_cells(folder / f"{notebook}.py"), names))
        out.append(Work(folder.name, code))
    return out


def listed(found: list[Pair]) -> set[frozenset[str]]:
    return {frozenset((p.a, p.b)) for p in found}


def test_a_class_of_40_with_no_copying_lists_no_one(tmp_path):
    build(tmp_path / "class", 40, seed=11, kinds=())
    class_works = works(tmp_path / "class")
    assert flagged(pairs(class_works, PUBLIC)) == []
    assert solution_named(class_works, PUBLIC) == {}


# A partial copy (2 or 3 items) in a class of 40 whose students converge this strongly stands
# where chance puts an honest pair about one class in four, and is listed about three times in
# four (``benchmarks/bench_integrity_calibration.py --sizes 40 --seeds ...``): it is tested
# among last round's kinds in a class of 150, below.
@pytest.mark.parametrize("kind", [kind for kind in KINDS if kind != "partial"])
def test_each_disguise_in_a_class_of_its_own_is_found(tmp_path, kind):
    planted = build(tmp_path / "class", 40, seed=12, kinds=[kind])
    found = flagged(pairs(works(tmp_path / "class"), PUBLIC))
    copies = {frozenset((a, b)) for a, b, _ in planted}
    assert copies <= listed(found), (kind, planted, [(p.a, p.b, p.evidence) for p in found])
    assert len(listed(found) - copies) <= 1  # at most one honest pair on the list


def test_the_ends_of_a_chain_are_listed_with_the_middle_link_named(tmp_path):
    planted = build(tmp_path / "class", 40, seed=12, kinds=["chain"])  # A -> B -> C, each dressed again
    students = {s for a, b, _ in planted for s in (a, b)}
    found = flagged(pairs(works(tmp_path / "class"), PUBLIC))
    chain = [p for p in found if {p.a, p.b} <= students]
    assert len(chain) == 3
    for p in chain:
        (middle,) = students - {p.a, p.b}
        assert why(p, found).endswith(f"; both are also listed with {middle}")


def test_the_instructors_solution_is_named_and_is_not_a_pair(tmp_path):
    planted = build(tmp_path / "class", 30, seed=13, kinds=["leaked"])
    leaked = planted[0][0]
    class_works = works(tmp_path / "class")
    named = solution_named(class_works, PUBLIC)
    assert list(named) == [leaked] and len(named[leaked]) >= 9
    assert not any(leaked in (p.a, p.b) for p in flagged(pairs(class_works, PUBLIC)))


def test_copies_among_a_fifth_of_the_class_do_not_hide_each_other(tmp_path):
    # Last round's class: a fifth of the students copy 2 to 4 items of their sources' own code.
    # Counted among the pairs that share an item by chance, the other copies of that item made
    # it look common (27 of 30 copies listed at 150, 24 of 67 partial copies at 1,000).
    planted = integrity_class.build(tmp_path / "class", 150, seed=1)
    found = listed(flagged(pairs(works(tmp_path / "class"), PUBLIC)))
    copies = {frozenset((a, b)) for a, b, _ in planted}
    assert copies <= found, [kind for a, b, kind in planted if frozenset((a, b)) not in found]
    assert found <= copies


def test_a_student_who_meets_a_copied_pair_by_chance_is_no_group_with_it(tmp_path):
    # Whoever shares a few fingerprints with one of a copied pair shares them with both: in this
    # class of 20, one student does so on two items, which made the three "a group".
    planted = build(tmp_path / "class", 20, seed=3, kinds=["whole"])
    found = flagged(pairs(works(tmp_path / "class"), PUBLIC))
    copy = {frozenset((a, b)) for a, b, _ in planted}
    assert copy <= listed(found)
    assert not any(p.group for p in found) and clusters(found) == []
