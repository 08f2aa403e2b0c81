"""``python -m grader new-item`` end to end, on a copy of the bundle: scaffold a function item
and a module item, see the audit refuse the unwritten reference, fill in small references,
audit, and grade a class; and each refusal, in one line, with nothing written.

Every step is the real CLI in its own process: a copy of the bundle has a reference package
of the same name as the real one, which one process cannot import twice.
"""

from __future__ import annotations

import csv
import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.assignment.config import DEFAULT_ASSIGNMENT

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = DEFAULT_ASSIGNMENT.parent


def cli(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def copy_bundle(root: Path) -> Path:
    """The bundle and its reference under ``root``, with an empty catalogue (the audit then
    runs the new entries only)."""
    bundle = root / "assignments" / BUNDLE.name
    shutil.copytree(BUNDLE, bundle, ignore=shutil.ignore_patterns("__pycache__", "sample_class", "sample_lms"))
    shutil.copytree(ROOT / "reference", root / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    for entry in (bundle / "catalogue").rglob("*.py"):
        entry.unlink()
    return bundle


def points(raw: dict, item: str) -> float:  # type: ignore[type-arg]
    checks = raw["items"][item]["checks"].values()
    return float(sum(c["points"] if isinstance(c, dict) else c for c in checks))


def digest(folder: Path) -> str:
    h = hashlib.sha1()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


def fill_reference(reference: Path, name: str, body: str) -> None:
    text = reference.read_text(encoding="utf-8")
    stub = re.compile(rf'^( +)raise NotImplementedError\("new-item: write the reference of {name}"\n +".*$', re.M)
    assert stub.search(text), f"no stub of {name} in {reference}"
    reference.write_text(stub.sub(lambda m: m.group(1) + body, text), encoding="utf-8")


def test_scaffold_fill_audit_grade(tmp_path: Path) -> None:
    # The audit grades the whole bundle (its torch items too) and releases the stubs (nbgrader).
    pytest.importorskip("torch")
    pytest.importorskip("nbgrader")
    bundle = copy_bundle(tmp_path)
    for args in (["scale_rows", "--notebook", "attention_numpy"],
                 ["ShiftLayer", "--notebook", "attention_torch", "--module"]):
        done = cli("new-item", *args, "--assignment", bundle)
        assert done.returncode == 0, done.stderr
        written = [Path(line) for line in done.stdout.splitlines() if line.startswith("/")]
        assert len(written) == 7 and all(p.is_file() for p in written)

    raw = yaml.safe_load((bundle / "assignment.yaml").read_text(encoding="utf-8"))
    assert raw["notebooks"]["attention_numpy"]["items"][-1] == "scale_rows"
    assert raw["notebooks"]["attention_torch"]["items"][-1] == "ShiftLayer"
    assert raw["items"]["ShiftLayer"]["checks"]["gradients_flow"] == 2

    refused = cli("audit", "--assignment", bundle)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "new-item's stub" in refused.stderr and "scale_rows" in refused.stderr

    fill_reference(tmp_path / "reference" / "attention_numpy.py", "scale_rows", "return 2.0 * x")
    fill_reference(tmp_path / "reference" / "attention_torch.py", "ShiftLayer", "return x + self.proj(x)")
    audited = cli("audit", "--assignment", bundle, "--seed", "3")
    assert audited.returncode == 0, audited.stdout + audited.stderr
    for entry in ("scale_rows_example_mistake", "scale_rows_example_alternative",
                  "shift_layer_example_mistake", "shift_layer_example_alternative"):
        assert entry in audited.stdout

    # A class: the reference (full marks) and the scaffold's mistake (fewer, on its item only).
    class_dir = tmp_path / "class"
    for student, broken in [("right", None), ("wrong", "scale_rows")]:
        folder = class_dir / student
        folder.mkdir(parents=True)
        for notebook in ("attention_numpy", "attention_torch"):
            source = (tmp_path / "reference" / f"{notebook}.py").read_text(encoding="utf-8")
            if broken and notebook == "attention_numpy":
                source += "\n\n" + (bundle / "catalogue" / "mutants" / f"{broken}_example_mistake.py").read_text()
            (folder / f"{notebook}.py").write_text(source, encoding="utf-8")
    graded = cli("grade", class_dir, "--out", tmp_path / "out", "--assignment", bundle, "--format", "csv",
                 "--no-progress")
    assert graded.returncode == 0, graded.stderr
    rows = {row["student"]: row for row in csv.DictReader((tmp_path / "out" / "grades.csv").open())}
    # Full marks on every item; the written answers (none in a .py of the reference) await a person.
    written = sum(question["points"] for question in yaml.safe_load(
        (bundle / "assignment.yaml").read_text(encoding="utf-8")).get("written", {}).values())
    assert float(rows["right"]["score"]) == float(rows["right"]["max_score"]) - written
    full = points(raw, "scale_rows")
    assert float(rows["wrong"]["scale_rows"]) < full == float(rows["right"]["scale_rows"])
    assert float(rows["wrong"]["ShiftLayer"]) == float(rows["right"]["ShiftLayer"]) == points(raw, "ShiftLayer")


@pytest.mark.parametrize(("args", "says"), [
    (["softmax", "--notebook", "attention_numpy"], "softmax exists already: an item of"),
    (["_softmax_last_axis", "--notebook", "attention_numpy"], "exists already: defined in"),
    (["2nd_try", "--notebook", "attention_numpy"], "is not a Python identifier"),
    (["class", "--notebook", "attention_numpy"], "is not a Python identifier"),
    (["new_thing", "--notebook", "attention_jax"], "'attention_jax' is not a notebook of"),
])
def test_refusals_in_one_line_writing_nothing(tmp_path: Path, args: list[str], says: str) -> None:
    bundle = copy_bundle(tmp_path)
    before = digest(tmp_path)
    done = cli("new-item", *args, "--assignment", bundle)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert digest(tmp_path) == before


def test_refuses_a_bundle_it_cannot_write(tmp_path: Path) -> None:
    bundle = copy_bundle(tmp_path)
    shutil.rmtree(bundle / "catalogue")
    (bundle / "catalogue").write_text("a file where the catalogue folder should be\n")
    before = digest(tmp_path)
    done = cli("new-item", "new_thing", "--notebook", "attention_numpy", "--assignment", bundle)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "cannot write" in done.stderr and "catalogue" in done.stderr
    assert digest(tmp_path) == before
