"""The student release: nbgrader strips every solution and hidden test, and nothing else.

The regions are read from the source notebooks themselves, so the tests follow the notebooks
when they change.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
from pathlib import Path

import nbformat
import pytest
import yaml
from bundle_support import BUNDLE_PATH

pytest.importorskip("nbgrader")

from grader.assignment.bundle import load_bundle  # noqa: E402
from grader.nbgrader.release import release_assignment  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIR = BUNDLE_PATH.parent
BUNDLE = load_bundle(SOURCE_DIR)
NOTEBOOKS = BUNDLE.release


def region_lines(source: str, begin: str, end: str) -> list[str]:
    """The lines between (and including) every ``begin`` ... ``end`` delimiter pair."""
    lines, inside = [], False
    for line in source.splitlines():
        if begin in line:
            inside = True
        if inside:
            lines.append(line)
        if end in line:
            inside = False
    assert not inside, f"unterminated {begin!r} region"
    return lines


def without_region(source: str, begin: str, end: str) -> str:
    kept, inside = [], False
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def nbgrader_meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


WRITTEN = {question.id for question in BUNDLE.assignment.written}


def is_written(cell) -> bool:
    """A written answer's cell (the bundle names its grade id): prose, not code."""
    return nbgrader_meta(cell).get("grade_id") in WRITTEN


def is_code_solution(cell) -> bool:
    return bool(nbgrader_meta(cell).get("solution")) and not is_written(cell)


def load(path: Path):
    return nbformat.read(path, as_version=4)


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("release")
    paths = release_assignment(BUNDLE, out)
    return {p.name: p for p in paths}


@pytest.fixture(scope="module")
def sources() -> dict[str, nbformat.NotebookNode]:
    return {name: load(SOURCE_DIR / name) for name in NOTEBOOKS}


def marked_lines(sources: dict, begin: str, end: str) -> list[str]:
    """Every non-blank stripped line of the source notebooks' ``begin`` ... ``end`` regions."""
    return [line.strip() for nb in sources.values() for cell in nb.cells
            for line in region_lines(cell.source, begin, end) if line.strip()]


def released_lines(released: dict[str, Path]) -> set[str]:
    """Every stripped line of every cell of both released notebooks."""
    lines = set()
    for path in released.values():
        for cell in load(path).cells:
            lines.update(line.strip() for line in cell.source.splitlines())
    return lines


def test_release_writes_both_notebooks(released):
    assert sorted(released) == sorted(NOTEBOOKS)
    for path in released.values():
        nb = load(path)
        nbformat.validate(nb)
        assert nb.metadata["kernelspec"]["name"] == "python3"


def test_release_rejects_a_directory_without_the_notebooks(tmp_path):
    with pytest.raises(ValueError, match=str(tmp_path / "empty")):
        release_assignment(BUNDLE, tmp_path / "out", tmp_path / "empty")


def test_every_graded_item_has_a_solution_and_a_test_cell_with_its_points(sources):
    config = yaml.safe_load((SOURCE_DIR / "assignment.yaml").read_text())
    for stem, spec in config["notebooks"].items():
        nb = sources[f"{stem}.ipynb"]
        ids = {nbgrader_meta(c).get("grade_id"): c for c in nb.cells if nbgrader_meta(c)}
        for item in spec["items"]:
            assert f"{item}_solution" in ids, f"{stem}: no solution cell for {item}"
            test = ids.get(f"test_{item}")
            assert test is not None, f"{stem}: no test cell for {item}"
            points = BUNDLE.assignment.item(item).points
            assert math.isclose(nbgrader_meta(test)["points"], points), item
            # A bundle other than the first names itself (assert_item's default is the first).
            assert re.search(rf'assert_item\("{item}", globals\(\)(, bundle="\w+")?\)', test.source)


def test_no_solution_line_survives(sources, released):
    survivors = released_lines(released)
    regions = marked_lines(sources, "BEGIN SOLUTION", "END SOLUTION")
    assert len(regions) > 50, "the source notebooks should hold the solutions"
    leaked = sorted({line for line in regions if line in survivors})
    assert not leaked, f"solution lines in the release: {leaked}"


def test_no_hidden_test_line_survives(sources, released):
    survivors = released_lines(released)
    hidden = marked_lines(sources, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
    assert hidden, "the source notebooks should hold hidden tests"
    leaked = sorted({line for line in hidden if line in survivors})
    assert not leaked, f"hidden-test lines in the release: {leaked}"
    for path in released.values():
        assert "grader.runners.inprocess" not in path.read_text()


def test_visible_tests_and_other_cells_survive(sources, released):
    for name, source_nb in sources.items():
        released_nb = load(released[name])
        assert len(released_nb.cells) == len(source_nb.cells)
        for src, rel in zip(source_nb.cells, released_nb.cells, strict=True):
            meta = nbgrader_meta(src)
            if is_written(src):
                continue  # test_written_answer_cells_are_released_as_nbgrader_releases_them
            if meta.get("grade"):
                visible = without_region(src.source, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
                assert rel.source.strip() == visible.strip(), meta["grade_id"]
                assert "assert" in rel.source, f"{meta['grade_id']}: no visible test left"
                assert nbgrader_meta(rel)["points"] == meta["points"]
            elif not meta.get("solution"):
                assert rel.source == src.source
            assert not rel.get("outputs"), "released notebooks must have no outputs"


def test_written_answer_cells_are_released_as_nbgrader_releases_them(sources, released):
    """Each written answer's cell: markdown, its model answer replaced by "YOUR ANSWER HERE",
    its nbgrader metadata (grade id, points, manually graded answer) intact."""
    seen = set()
    for name, source_nb in sources.items():
        for src, rel in zip(source_nb.cells, load(released[name]).cells, strict=True):
            if not is_written(src):
                continue
            question = BUNDLE.assignment.written[[q.id for q in BUNDLE.assignment.written].index(
                nbgrader_meta(src)["grade_id"])]
            assert f"{question.notebook}.ipynb" == name
            assert rel.cell_type == src.cell_type == "markdown"
            assert rel.source == "YOUR ANSWER HERE" != src.source
            released_meta = dict(nbgrader_meta(rel))
            assert released_meta.pop("checksum")  # nbgrader's: an unchanged answer is "No response."
            assert released_meta.pop("cell_type") == "markdown"  # nbgrader's, to restore a changed type
            assert released_meta == dict(nbgrader_meta(src))
            assert released_meta["grade"] and released_meta["solution"] and not released_meta["locked"]
            assert math.isclose(released_meta["points"], question.points)
            seen.add(question.id)
    assert seen == WRITTEN and WRITTEN


def _defs(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    """Every function and method of a cell, keyed ``name`` or ``Class.name``."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef):
                    found[f"{node.name}.{sub.name}"] = sub
    return found


def _is_raise_not_implemented(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Raise)
        and isinstance(stmt.exc, ast.Call)
        and isinstance(stmt.exc.func, ast.Name)
        and stmt.exc.func.id == "NotImplementedError"
    )


def test_stubs_keep_signature_and_docstring_and_raise(sources, released):
    stubbed = set()
    for name, source_nb in sources.items():
        released_nb = load(released[name])
        for src, rel in zip(source_nb.cells, released_nb.cells, strict=True):
            if not is_code_solution(src):
                continue
            src_defs = _defs(ast.parse(src.source))
            rel_defs = _defs(ast.parse(rel.source))
            assert src_defs.keys() == rel_defs.keys()
            for qualname, src_def in src_defs.items():
                rel_def = rel_defs[qualname]
                same_signature = ast.dump(rel_def.args) == ast.dump(src_def.args)
                assert same_signature, f"{qualname}: signature changed"
                doc = ast.get_docstring(src_def)
                assert doc, f"{qualname}: the source has no docstring"
                assert ast.get_docstring(rel_def) == doc, f"{qualname}: docstring changed"
                assert _is_raise_not_implemented(rel_def.body[-1]), (
                    f"{qualname}: the stub must end in raise NotImplementedError()"
                )
                returns = [n for n in ast.walk(rel_def) if isinstance(n, ast.Return)]
                assert not returns, f"{qualname}: a return survived"
                stubbed.add(qualname.split(".")[0])
    assert {item.name for item in BUNDLE.assignment.items} <= stubbed  # every function and class graded


def test_stubs_raise_not_implemented_when_called(released):
    """Execute the released exercise cells and call every stub."""
    import numpy as np
    import torch
    from torch import nn

    for path in released.values():
        namespace = {"np": np, "math": math, "torch": torch, "nn": nn}
        for cell in load(path).cells:
            if is_code_solution(cell):
                exec(compile(cell.source, str(path), "exec"), namespace)
        for obj in list(namespace.values()):
            if inspect.isfunction(obj):
                targets = [(obj, len(inspect.signature(obj).parameters))]
            elif inspect.isclass(obj) and issubclass(obj, nn.Module) and obj is not nn.Module:
                targets = [
                    (getattr(obj, m), len(inspect.signature(getattr(obj, m)).parameters))
                    for m in vars(obj)
                    if inspect.isfunction(getattr(obj, m)) and m != "__init__"
                ]
                with pytest.raises(NotImplementedError):
                    obj(*[4] * (len(inspect.signature(obj).parameters)))
                instance = obj.__new__(obj)
                targets = [(getattr(instance, f.__name__), n - 1) for f, n in targets]
            else:
                continue
            for func, n_args in targets:
                with pytest.raises(NotImplementedError):
                    func(*[None] * n_args)


# ---- nothing hidden ships --------------------------------------------------------------

def _shipped(released: dict[str, Path]) -> tuple[Path, dict[str, str]]:
    folder = next(iter(released.values())).parent
    return folder, {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir() if p.is_file()}


def _body_lines(source: str) -> set[str]:
    """The stripped lines of every function body in ``source`` (docstrings left out) that say
    something: a line such as ``return out`` or ``)`` is in any Python file."""
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            for stmt in body:
                segment = ast.get_source_segment(source, stmt) or ""
                lines.update(line.strip() for line in segment.splitlines())
    return {line for line in lines if len(line) >= 24 and not line.startswith("#")}


def test_the_release_is_the_notebooks_and_check_py(released):
    _, texts = _shipped(released)
    assert sorted(texts) == sorted([*NOTEBOOKS, "check.py"])
    compile(texts["check.py"], "check.py", "exec")


def test_no_reference_line_ships(released):
    _, texts = _shipped(released)
    shipped = released_lines(released) | {line.strip() for line in texts["check.py"].splitlines()}
    reference = set()
    # This bundle's reference modules: the reference folder also holds the other bundles'.
    for notebook in BUNDLE.assignment.notebooks:
        reference |= _body_lines(BUNDLE.reference_source(notebook))
    assert len(reference) > 50
    leaked = sorted(reference & shipped)
    assert not leaked, f"reference lines in the release: {leaked}"


def test_no_hidden_check_ships(released):
    _, texts = _shipped(released)
    check_py = texts["check.py"]
    shipped_lines = {line.strip() for line in check_py.splitlines()}
    items = BUNDLE.assignment.items
    public_names = {name for item in items for name in item.public}
    public_fns = {BUNDLE.checks.get(item.name, name) for item in items for name in item.public}
    public_lines = set().union(*(_body_lines(inspect.getsource(fn)) for fn in public_fns))
    hidden = [(item, name) for item in items for name, _ in item.checks if name not in item.public]
    assert hidden
    for item, name in hidden:
        fn = BUNDLE.checks.get(item.name, name)
        assert fn not in public_fns
        assert not re.search(rf"\b{fn.__name__}\b", check_py), f"{item.name}.{name}: {fn.__name__} ships"
        if name not in public_names:  # a name that is public for another item may appear
            for file, text in texts.items():
                assert not re.search(rf"\b{name}\b", text), f"hidden check {item.name}.{name} named in {file}"
        leaked = sorted((_body_lines(inspect.getsource(fn)) - public_lines) & shipped_lines)
        assert not leaked, f"code of the hidden check {item.name}.{name} in check.py: {leaked}"


def test_nothing_shipped_imports_the_grader_or_the_reference(released):
    _, texts = _shipped(released)
    lines = released_lines(released) | {line.strip() for line in texts["check.py"].splitlines()}
    imports = [line for line in lines if re.match(r"(import|from)\s+(grader|reference)\b", line)]
    assert not imports, imports
    assert not re.search(r"\b(import|from)\s+(grader|reference)\b", texts["check.py"])


# ---- a release never replaces work -------------------------------------------------------

def _release_cli(*args: str) -> int:
    from grader.cli import main

    return main(["release", "--assignment", str(BUNDLE_PATH), *args])


def test_release_again_over_the_same_release_changes_nothing(released, capsys):
    out = next(iter(released.values())).parent
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert _release_cli("--out", str(out)) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_release_stops_before_it_replaces_a_students_work_and_force_replaces_it(released, tmp_path, capsys):
    out = tmp_path / "class"
    out.mkdir()
    for name, path in released.items():
        (out / name).write_bytes(path.read_bytes())
    work = out / NOTEBOOKS[0]
    nb = load(work)
    nb.cells[-1].source += "\n# my finished work"
    nbformat.write(nb, work)
    finished = work.read_bytes()
    capsys.readouterr()
    assert _release_cli("--out", str(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(work) in err and "--force" in err, err
    assert str(out / "check.py") not in err  # absent files are no one's work
    assert work.read_bytes() == finished and not (out / "check.py").exists()
    assert sorted(p.name for p in out.iterdir()) == sorted(NOTEBOOKS)  # nothing written, no partial file
    assert _release_cli("--out", str(out), "--force") == 0
    assert work.read_bytes() == released[NOTEBOOKS[0]].read_bytes()


def test_release_into_a_file_is_one_line_and_leaves_it(tmp_path, capsys):
    target = tmp_path / "release.txt"
    target.write_text("mine")
    assert _release_cli("--out", str(target)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(target) in err and "Traceback" not in err
    assert target.read_text() == "mine"
