"""new-item's pieces: templates that are Python files (ruff and mypy check them), filled in
by their tokens alone; the YAML extended only where the result loads as the old data plus
the new entries."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.authoring.pieces import FOR_CHECKERS, STUB_MARK, TEMPLATES, Item, template

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = DEFAULT_ASSIGNMENT.parent
ITEM = Item("ScaleRows", "scale_rows", "reference", "attention_numpy", 4)
PIECES = ["reference", "checks", "mistake", "alternative", "visible_tests", "intro"]


@pytest.mark.parametrize("module", [False, True])
@pytest.mark.parametrize("piece", PIECES)
def test_each_piece_is_filled_by_its_tokens_alone(piece: str, module: bool) -> None:
    before, written = template(piece, module)
    filled = ITEM.fill(written)
    assert not re.search(r"__(NAME|SNAKE|UPPER|REF|NB|POINTS)__", filled)
    assert FOR_CHECKERS not in filled and "ScaleRows" in filled
    if piece in ("checks", "mistake"):  # whole modules: Python as written
        ast.parse(filled)
        assert "from __future__ import annotations" in filled or piece == "mistake"


def test_the_tokens_leave_pythons_own_dunder_names_alone() -> None:
    assert ITEM.fill("from __future__ import x; __init__ __name__ __NAME__.__doc__ __UPPER___D") == (
        "from __future__ import x; __init__ __name__ ScaleRows.__doc__ SCALE_ROWS_D")


def test_the_reference_stub_says_the_mark_the_audit_looks_for() -> None:
    for module in (False, True):
        needs, stub = template("reference", module)
        assert STUB_MARK + "__NAME__" in stub and needs.startswith(("import ", "from "))


def test_every_template_file_is_one_new_item_reads() -> None:
    files = {p.name for p in TEMPLATES.iterdir() if p.suffix in (".py", ".md")} - {"__init__.py"}
    used = {f"{piece}_{kind}" for piece in PIECES for kind in ("function", "module")} | {"hidden_tests_call"}
    assert {name.rsplit(".", 1)[0] for name in files} == used


def test_a_yaml_it_cannot_extend_safely_is_refused_in_one_line_writing_nothing(tmp_path: Path) -> None:
    # Its items indented by four spaces: the entry new-item would append is not one of them.
    bundle = tmp_path / "assignments" / BUNDLE.name
    shutil.copytree(BUNDLE, bundle, ignore=shutil.ignore_patterns("__pycache__", "sample_class", "sample_lms"))
    shutil.copytree(ROOT / "reference", tmp_path / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    head, items = (bundle / "assignment.yaml").read_text(encoding="utf-8").split("\nitems:\n")
    text = head + "\nitems:\n" + "".join(f"  {line}" if line.strip() else line for line in items.splitlines(True))
    (bundle / "assignment.yaml").write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "grader", "new-item", "scale_rows", "--notebook", "attention_numpy",
                           "--assignment", str(bundle)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "items: must be the YAML's last section, its entries indented by two spaces" in done.stderr
    assert (bundle / "assignment.yaml").read_text(encoding="utf-8") == text
    assert not (bundle / "checks" / "scale_rows.py").exists()
