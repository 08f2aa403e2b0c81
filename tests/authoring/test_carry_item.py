"""Adding an item edits no test: on a copy of the bundle, add a small NumPy item as
docs/authoring.md says (``new-item``, the reference, the notebook's solution, the sample
class), check that the files it touched are exactly the ones the guide's section 10 lists,
and run the bundle-dependent tests on the copy (``TESTS_BUNDLE``), unedited.

Every step runs in its own process: the copy's reference is a package of the same name as the
real one, which one process cannot import twice.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from bundle_support import BUNDLE_PATH, BUNDLE_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "authoring.md"
ITEM, NOTEBOOK = "half_rows", "attention_numpy"
# What new-item's stub raises, in the reference and between the solution markers: the body.
STUB = re.compile(rf'^( +)raise NotImplementedError\("new-item: write the reference of {ITEM}"\n +".*$', re.M)
BODY = "return 0.5 * x"

# The bundle-dependent tests that an item reaches (its YAML, checks, reference, notebooks,
# catalogue, sample class and grades), as runs of pytest (each -k applies to its own run): the
# tests over every item or entry run for the new one, and those that total or list the items.
RUNS = (
    ["tests/assignment/test_config.py", "tests/assignment/test_catalogue.py", "tests/generate/",
     "tests/reference/test_reference_numpy.py"],
    ["tests/assignments/attention/", "-k", f"{ITEM} or every_numpy_item or covers_every or reference_gets_full"],
    ["tests/test_notebooks.py", "-k", "numpy"],
    ["tests/test_cli.py", "-k", "each_sample or grades_csv or report_counts"],
)


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, env=env)


def digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def listed_in_section_10() -> list[str]:
    """The paths section 10's table lists (its first column), each ``<name>`` a placeholder."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("\n## 10."):]
    section = section[:section.index("\n## ", 1)]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return [path for cell in rows for path in re.findall(r"`([^`]+)`", cell)]


def matches(pattern: str, path: str) -> bool:
    """``<name>`` is one path component; a pattern that ends with ``/`` is a folder."""
    regex = re.sub(r"<[^>]+>", "[^/]+", re.escape(pattern).replace(r"\<", "<").replace(r"\>", ">"))
    return re.fullmatch(regex + (".*" if pattern.endswith("/") else ""), path) is not None


def fill(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert STUB.search(text), f"no stub of {ITEM} in {path}"
    path.write_text(STUB.sub(lambda m: m.group(1) + BODY, text), encoding="utf-8")


def solved(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    assert STUB.search(cell.source), cell.source
    return nbformat.v4.new_code_cell(STUB.sub(lambda m: m.group(1) + BODY, cell.source), metadata=cell.metadata)


def add_cells(student: Path, cells: list[nbformat.NotebookNode]) -> None:
    nb = nbformat.read(student, as_version=4)
    nb.cells += [nbformat.from_dict({**cell, "id": f"{ITEM}-{k}"}) for k, cell in enumerate(cells)]
    nbformat.write(nb, student)


@pytest.mark.skipif(BUNDLE_PATH.parent.name != "attention", reason="the item is written for the attention bundle")
def test_an_item_added_as_the_guide_says_passes_the_tests_unedited(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("nbgrader")
    project = tmp_path / "project"
    bundle = project / "assignments" / BUNDLE_PATH.parent.name
    shutil.copytree(BUNDLE_PATH.parent, bundle, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "reference", project / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "docs").mkdir()
    shutil.copy2(ROOT / "docs" / "contract.md", project / "docs" / "contract.md")
    before = digests(project)

    # The author's steps (docs/authoring.md sections 1, 2, 7 and 10).
    done = run("-m", "grader", "new-item", ITEM, "--notebook", NOTEBOOK, "--assignment", bundle)
    assert done.returncode == 0, done.stderr
    fill(project / "reference" / f"{NOTEBOOK}.py")
    with open(project / "docs" / "contract.md", "a", encoding="utf-8") as contract:
        contract.write(f"\n### `{ITEM}(x)`\n\nHalf of `x`, entry by entry.\n")
    source = nbformat.read(bundle / f"{NOTEBOOK}.ipynb", as_version=4)
    source.cells[-2] = solved(source.cells[-2])
    nbformat.write(source, bundle / f"{NOTEBOOK}.ipynb")
    released = tmp_path / "release"
    done = run("-m", "grader", "release", "--out", released, "--assignment", bundle)
    assert done.returncode == 0, done.stderr
    new_cells = nbformat.read(next(released.rglob(f"{NOTEBOOK}.ipynb")), as_version=4).cells[-3:]
    for student, solution in (("Ada Lovelace", True), ("Grace Hopper", True), ("Blank Student", False)):
        cells = [new_cells[0], source.cells[-2] if solution else new_cells[1], new_cells[2]]
        add_cells(bundle / "sample_class" / student / bundle.name / f"{NOTEBOOK}.ipynb", cells)
    for generator in ("sample_class", "lms_downloads"):
        done = run("-m", f"grader.generate.{generator}", bundle)
        assert done.returncode == 0, done.stderr

    after = digests(project)
    touched = sorted(path for path in after if before.get(path) != after[path])
    assert not set(before) - set(after), "nothing is deleted"
    listed = listed_in_section_10()
    assert [path for path in touched if not any(matches(p, path) for p in listed)] == [], \
        "the item touched files that section 10 does not list"
    assert [p for p in listed if not any(matches(p, path) for path in touched)] == [], \
        "section 10 lists files that adding an item did not touch"

    env = {**os.environ, BUNDLE_VARIABLE: str(bundle)}
    for args in RUNS:
        done = run("-m", "pytest", "-x", "-p", "no:cacheprovider", *args, env=env)
        assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
        assert f"{BUNDLE_VARIABLE}: the bundle-dependent tests read {bundle / 'assignment.yaml'}" in done.stdout
