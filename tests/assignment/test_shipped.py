"""A course's assignments: the bundles shipped in assignments/, ``--assignment`` as a folder, a
YAML or a shipped bundle's name, the first assignment as the named default whatever else ships,
and a class folder of another assignment refused in one line that names the fitting one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from course_support import FIRST, ROOT, TINY_REFERENCE, grader_in, python_in, tiny_bundle, tree_shipping

from grader.assignment.config import DEFAULT_ASSIGNMENT, DEFAULT_NAME, ConfigError
from grader.assignment.shipped import resolve_assignment, shipped_names


def shipped_root(tmp_path: Path, *names: str) -> Path:
    for name in names:
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "assignment.yaml").write_text(f"assignment: {name}\n", encoding="utf-8")
    (tmp_path / "notes").mkdir()  # a folder without a YAML is no bundle
    return tmp_path


def test_the_default_comes_first_whatever_sorts_before_it(tmp_path: Path):
    root = shipped_root(tmp_path, "zeta", DEFAULT_NAME, "aardvark")
    assert shipped_names(root) == (DEFAULT_NAME, "aardvark", "zeta")
    assert DEFAULT_ASSIGNMENT.parent.name == DEFAULT_NAME and DEFAULT_ASSIGNMENT.is_file()


def test_a_shipped_name_resolves_to_its_yaml_and_a_path_stays_a_path(tmp_path: Path, monkeypatch):
    root = shipped_root(tmp_path / "shipped", DEFAULT_NAME, "llm_like")
    assert resolve_assignment("llm_like", root) == root / "llm_like" / "assignment.yaml"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "llm_like").mkdir()  # a folder of that name here is what the user means
    assert resolve_assignment("llm_like", root) == Path("llm_like")
    for given in ("elsewhere/bundle", "missing.yaml", "./llm_lik"):
        assert resolve_assignment(given, root) == Path(given)  # the loader's own error says it is not there


def test_an_unknown_name_is_one_line_listing_the_shipped_ones(tmp_path: Path):
    root = shipped_root(tmp_path, DEFAULT_NAME, "llm_like")
    with pytest.raises(ConfigError) as error:
        resolve_assignment("llm_lik", root)
    message = str(error.value)
    assert "\n" not in message and f"(shipped: {DEFAULT_NAME}, llm_like)" in message and message.startswith("llm_lik:")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The grader's tree with a second bundle that sorts before the first, and a class of it."""
    bundles = tmp_path_factory.mktemp("bundles")
    tree = tree_shipping(tmp_path_factory.mktemp("tree"), tiny_bundle(bundles, "aaa_second"))
    for student in ("ada", "bob"):
        (tree / "class" / student).mkdir(parents=True)
        (tree / "class" / student / "scaled.py").write_text(TINY_REFERENCE, encoding="utf-8")
    return tree


def test_a_second_bundle_does_not_change_the_default(tree: Path):
    shown = python_in(tree, "from grader.assignment.config import DEFAULT_ASSIGNMENT as d; print(d.parent.name)")
    assert shown == DEFAULT_NAME


def test_every_verb_resolves_the_name_it_is_given(tree: Path):
    code = ("from grader.cli import main\n"
            "verbs = ('grade c --out o', 'release --out r', 'gradescope --out z', 'audit', 'new-item x --notebook n')\n"
            "for verb in verbs:\n"
            "    print(main([*verb.split(), '--assignment', 'aaa_secnd']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    assert done.stdout.split() == ["2"] * 5, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 5 and all(line.startswith("error: aaa_secnd: ") and "aaa_second)" in line for line in lines)


def test_a_class_is_graded_with_the_bundle_its_name_gives(tree: Path, tmp_path: Path):
    done = grader_in(tree, "grade", str(tree / "class"), "--out", str(tmp_path / "out"), "--assignment",
                     "aaa_second", "--jobs", "1", "--seed", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert rows == ["student,score,max_score,double", "ada,1,1,1", "bob,1,1,1"]


def test_an_unknown_name_stops_the_command_in_one_line(tree: Path, tmp_path: Path):
    done = grader_in(tree, "audit", "--assignment", "aaa_secnd", cwd=tmp_path)
    assert done.returncode == 2
    (line,) = [line for line in done.stderr.splitlines() if "error:" in line]
    assert f"(shipped: {DEFAULT_NAME}, aaa_second)" in line


def test_a_class_of_the_other_assignment_is_refused_naming_it(tree: Path, tmp_path: Path):
    done = grader_in(tree, "grade", str(tree / "class"), "--out", str(tmp_path / "out"), "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "2 of 2 hold 'aaa_second'" in line and line.endswith("--assignment aaa_second"), line
    assert not (tmp_path / "out").exists()


def test_new_item_in_a_bundle_but_the_first_writes_hidden_tests_that_name_it(tmp_path: Path):
    """nbgrader's own autograde runs the hidden tests; assert_item's default is the first bundle."""
    tree = tree_shipping(tmp_path / "tree")
    shutil.copytree(FIRST, tree / "assignments" / "second", ignore=shutil.ignore_patterns("sample_*", "__pycache__"))
    for bundle, call in (("second", 'assert_item("half_rows", globals(), bundle="second")'),
                         (DEFAULT_NAME, 'assert_item("half_rows", globals())')):
        done = grader_in(tree, "new-item", "half_rows", "--notebook", "attention_numpy", "--assignment", bundle)
        assert done.returncode == 0, done.stderr
        notebook = tree / "assignments" / bundle / "attention_numpy.ipynb"
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        assert any(call in "".join(cell["source"]) for cell in cells), bundle
        (tree / "reference" / "attention_numpy.py").write_text(  # the stub, taken back for the next bundle
            (ROOT / "reference" / "attention_numpy.py").read_text(encoding="utf-8"), encoding="utf-8")


def test_the_hidden_tests_take_a_shipped_bundles_name(assignment):
    from grader.nbgrader.hidden_tests import assert_item

    namespace: dict = {}
    exec(assignment.reference_source("attention_numpy"), namespace)  # noqa: S102 - the reference
    assert_item("causal_mask", namespace, bundle=DEFAULT_NAME)
    with pytest.raises(ConfigError, match="shipped: "):
        assert_item("causal_mask", namespace, bundle="no_such_bundle")
