"""Where a student's code comes from, beside the pairs: the instructor's solution handed in
(recognised as pairs are, names ignored), the ``--known-sources`` it matches (never the
catalogue), and the release's stubs, which are no one's code."""

from __future__ import annotations

import ast
import builtins
import shutil

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.integrity.evidence import Pair, Work, pairs
from grader.integrity.fingerprints import definitions
from grader.integrity.listing import flagged
from grader.integrity.origins import public_matches, solution_named
from grader.integrity.public import public_code, starter
from grader.submissions.load import Cell, read_cells

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
PUBLIC = public_code(BUNDLE)


class _Renamed(ast.NodeTransformer):
    """A light rename: every argument and local name of the student's own, nothing else."""

    def __init__(self, keep: set[str]) -> None:
        self.keep = keep

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = node.arg if node.arg in ("self", "cls") else f"my_{node.arg}"
        return node

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = node.id if node.id in self.keep or node.id in ("self", "cls") else f"my_{node.id}"
        return node


def renamed(source: str) -> str:
    tree = ast.parse(source)
    # Modules, top-level names and builtins keep theirs: only what the code's own functions bind changes.
    imported = (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))
    keep = {n.asname or n.name.split(".")[0] for node in imported for n in node.names} | set(dir(builtins)) \
        | {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return ast.unparse(_Renamed(keep).visit(tree))


def solution(rename: bool = False) -> dict:
    code = {}
    for notebook in BUNDLE.assignment.notebooks:
        source = BUNDLE.reference_source(notebook)
        code.update(definitions([Cell(1, renamed(source) if rename else source)],
                                [item.name for item in BUNDLE.assignment.items_of(notebook)]))
    return code


def release() -> dict:
    code = {}
    for notebook in BUNDLE.assignment.notebooks:
        cells = [Cell(c.number, starter(c.source)) for c in read_cells(BUNDLE.root / f"{notebook}.ipynb")]
        code.update(definitions(cells, [item.name for item in BUNDLE.assignment.items_of(notebook)]))
    return code


def test_the_solution_with_its_names_changed_is_named_as_the_solution_is():
    light = solution(rename=True)
    assert "my_" in light["scaled_dot_product_attention"].source
    class_works = [Work("ann", solution()), Work("bob", light), Work("cy", release()), Work("dee", release())]
    named = solution_named(class_works, PUBLIC)
    assert set(named) == {"ann", "bob"} and len(named["bob"]) >= 8, named


def test_the_release_unchanged_or_stubs_only_is_no_ones_code():
    given = release()
    assert given and all(code.stub for code in given.values())
    # Stubs of one's own: ``pass``, ``...``, ``return None``, a docstring, ``super().__init__()``.
    own_stubs = "\n".join(f"def {item.name}(*args):\n    '''Mine.'''\n    {body}\n"
                          for item, body in zip(BUNDLE.assignment.items_of("attention_numpy"),
                                                ["pass", "...", "return None", "raise ValueError('todo')"] * 3,
                                                strict=False))
    own_stubs += "\nclass MultiHeadAttention:\n    def __init__(self, d):\n        super().__init__()\n"
    stubs = definitions([Cell(1, own_stubs)], [item.name for item in BUNDLE.assignment.items])
    assert len(stubs) == 11 and all(code.stub for code in stubs.values())
    same = {"softmax": "the same None"}
    works = [Work("ann", solution()), Work("bob", given), Work("cy", given), Work("dee", stubs), Work("eve", stubs),
             Work("fay", stubs, behaviour=same), Work("gus", stubs, behaviour=same)]
    assert flagged(pairs(works, PUBLIC)) == []
    assert set(solution_named(works, PUBLIC)) <= {"ann"}
    assert not any(public_matches(w, PUBLIC) for w in works)


def test_a_pair_with_no_item_of_evidence_is_never_listed():
    # Three students who share nothing: each link weak, but together a triangle.
    empty = [Pair("a", "b", 0.0, (), 1.0), Pair("a", "c", 0.0, (), 1.0), Pair("b", "c", 0.0, (), 1.0)]
    assert flagged(empty) == []


def test_the_catalogue_is_set_aside_but_never_named_as_public_code(tmp_path):
    mutant = BUNDLE.catalogue_dir / "mutants" / "sdpa_no_scale.py"
    work = Work("ann", definitions(read_cells(mutant), ["scaled_dot_product_attention"]))
    assert public_matches(work, PUBLIC) == {}
    shutil.copy(mutant, tmp_path / "tutorial.py")  # the same code, from --known-sources: named
    assert public_matches(work, public_code(BUNDLE, tmp_path)) == {"scaled_dot_product_attention": ("tutorial.py",)}
