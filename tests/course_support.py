"""A course with two assignments, before the second ships: throwaway bundles written in a test's
temporary folder (never under assignments/), and a copy of the grader's tree that ships them
beside the first, so that ``--assignment NAME`` and the default can be tried as an installed
tree has them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from bundle_support import BUNDLE_PATH

ROOT = Path(__file__).resolve().parents[1]
FIRST = BUNDLE_PATH.parent  # the first bundle (the shipped one, or the one TESTS_BUNDLE names)


def copy_of_first(where: Path, name: str) -> Path:
    """The first bundle as another assignment, ``where/NAME``: its YAML with ``assignment: NAME``
    (checks, reference and catalogue: the first's, by absolute path) and its source notebooks.
    Same notebooks, same items: a second assignment of the same course in nbgrader's eyes."""
    folder = where / name
    folder.mkdir(parents=True)
    text = BUNDLE_PATH.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^assignment: .*$", f"assignment: {name}", text, count=1)
    for key in ("checks", "reference", "catalogue"):
        text = re.sub(rf"(?m)^(  {key}: )(\S+)", lambda m: m.group(1) + str((FIRST / m.group(2)).resolve()), text,
                      count=1)
    (folder / "assignment.yaml").write_text(text, encoding="utf-8")
    for notebook in FIRST.glob("*.ipynb"):
        shutil.copy2(notebook, folder / notebook.name)
    return folder


# A bundle of its own, with notebooks of its own: ``scaled.double(x) = 2 x``.
TINY_YAML = """\
assignment: {name}
bundle: {{checks: checks, reference: tinyref, catalogue: catalogue, warm: [numpy]}}
notebooks: {{scaled: {{items: [double]}}}}
limits: {{load_seconds: 30, cell_seconds: 5, item_seconds: 5, memory_mb: 1024, processes: 16, file_size_mb: 4,
         output_kb: 16, reply_mb: 4}}
tolerances: {{float64: {{rtol: 1.0e-7, atol: 1.0e-9}}, float32: {{rtol: 2.0e-4, atol: 2.0e-5}}}}
items: {{double: {{checks: {{doubles: 1}}}}}}
"""

TINY_CHECKS = '''\
from tinyref import scaled as ref

from grader.assignment.registry import Registry
from grader.checks.base import Args, Trial, as_array
from grader.checks.expect import expect_close

REGISTRY = Registry()


@REGISTRY.check("double", "doubles")
def doubles(t: Trial) -> None:
    x = t.rng.normal(size=(2, 3))
    (reply,) = t.call_each([Args(x)])
    expect_close(t, as_array(reply, "double(x)"), t.reference(ref.double, x), "double(x)", "2 x")
'''

TINY_REFERENCE = "def double(x):\n    return 2 * x\n"


def tiny_bundle(where: Path, name: str) -> Path:
    """``where/NAME``: a one-item bundle whose notebook is ``scaled`` (its reference inside it)."""
    folder = where / name
    files = {"assignment.yaml": TINY_YAML.format(name=name), "checks/__init__.py": TINY_CHECKS,
             "tinyref/__init__.py": "", "tinyref/scaled.py": TINY_REFERENCE}
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def tree_shipping(where: Path, *bundles: Path) -> Path:
    """A copy of the grader's tree (``grader/``, ``reference/``, the first bundle without its LMS
    samples) at ``where``, with ``bundles`` shipped beside the first (each as
    ``assignments/<its folder's name>/``)."""
    skip = shutil.ignore_patterns("__pycache__", "sample_lms")
    for part in ("grader", "reference", f"assignments/{FIRST.name}"):
        shutil.copytree(ROOT / part, where / part, ignore=skip)
    for bundle in bundles:
        shutil.copytree(bundle, where / "assignments" / bundle.name, ignore=skip)
    return where


def grader_in(tree: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m grader ARGS`` of the tree at ``tree`` (its own package first on the path)."""
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd or tree, env=_env(tree))


def python_in(tree: Path, code: str) -> str:
    """What ``python -c CODE`` prints, run with the tree's package."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tree,
                          env=_env(tree))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}
