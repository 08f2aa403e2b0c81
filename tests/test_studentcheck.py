"""The students' check.py (``grader.studentcheck``): generated from the grader's own public
checks, it runs without this package or the reference, finds the classic bugs, reports a
hang as a hang, and gives every public check the grader's verdict and message."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from grader.bundle import Bundle, load_bundle
from grader.catalogue import load_catalogue, write_submission
from grader.config import DEFAULT_ASSIGNMENT
from grader.pool import local
from grader.studentcheck.generate import SEED, GenerationError, build_check_py

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
SAMPLE = DEFAULT_ASSIGNMENT.parent / "sample_class" / "Ada Lovelace" / "attention"

# Mutants overflow on purpose; the children's warnings go nowhere anyway.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """check.py beside correct notebooks, as a student finds it."""
    folder = tmp_path_factory.mktemp("release")
    (folder / "check.py").write_text(build_check_py(BUNDLE), encoding="utf-8")
    for notebook in BUNDLE.release:
        shutil.copy(SAMPLE / notebook, folder / notebook)
    return folder


@pytest.fixture(scope="module")
def poison(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose ``grader`` and ``reference`` fail to import: first on PYTHONPATH, it
    proves that check.py (parent and children) needs neither."""
    folder = tmp_path_factory.mktemp("poison")
    for name in ("grader", "reference"):
        (folder / f"{name}.py").write_text(f"raise ImportError('check.py imported {name}')\n")
    return folder


def run_check(release: Path, poison: Path, *args: str | Path, cwd: Path | None = None,
              timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(poison), "HOME": str(release)}
    return subprocess.run([sys.executable, str(release / "check.py"), *map(str, args)], cwd=cwd or release,
                          env=env, capture_output=True, text=True, timeout=timeout)


def parse(stdout: str) -> list[dict[str, dict[str, tuple[bool, str]]]]:
    """check.py's report: per file in order, item -> check -> (passed, message)."""
    files: list[dict[str, dict[str, tuple[bool, str]]]] = []
    item = ""
    for line in stdout.splitlines():
        if re.fullmatch(r"\S.* \(checked as \w+\)", line):
            files.append({})
        elif match := re.fullmatch(r"  (\w+) +\d+ of \d+ public checks passed", line):
            item = match.group(1)
            files[-1][item] = {}
        elif match := re.fullmatch(r"    ok    (\w+)", line):
            files[-1][item][match.group(1)] = (True, "")
        elif match := re.fullmatch(r"    FAIL  (\w+): (.*)", line):
            files[-1][item][match.group(1)] = (False, match.group(2))
    return files


def test_correct_notebooks_pass_every_public_check(release: Path, poison: Path):
    pytest.importorskip("torch", reason="the torch notebook's public checks need torch")
    proc = run_check(release, poison)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    total = sum(len(item.public) for item in BUNDLE.assignment.items)
    assert f"{total} of {total} public checks passed" in proc.stdout
    reports = parse(proc.stdout)
    assert [sorted(r) for r in reports] == [sorted(i.name for i in BUNDLE.assignment.items_of(nb) if i.public)
                                           for nb in BUNDLE.assignment.notebooks]
    assert "Traceback" not in proc.stdout + proc.stderr


def test_the_file_holds_only_public_checks():
    text = build_check_py(BUNDLE)
    assert "import grader" not in text and "from grader" not in text
    assert "import reference" not in text and "from reference" not in text
    for item in BUNDLE.assignment.items:
        for name, _ in item.checks:
            fn = BUNDLE.checks.get(item.name, name)
            assert (f"\ndef {fn.__name__}(" in text) == (name in item.public), (item.name, name)


@pytest.mark.parametrize("mutant, item, check, phrase", [
    ("causal_mask_inverted", "causal_mask", "allows_past_and_self", "may not attend"),
    ("sdpa_no_scale", "scaled_dot_product_attention", "worked_example", "scale is missing"),
    ("pe_2i_slip", "positional_encoding", "worked_example", "counting the pairs"),
    ("sdpa_inverted_mask", "scaled_dot_product_attention", "masked_weights_are_zero", "exactly 0"),
    ("luong_general_W_on_keys", "luong_attention", "general_worked_example", "W applied to the keys"),
    ("luong_module_dot_with_W", "LuongAttention", "dot_has_no_parameters", "0 parameters"),
])
def test_the_classic_bugs_are_found(release: Path, poison: Path, tmp_path: Path, mutant: str, item: str,
                                    check: str, phrase: str):
    entry = next(e for e in load_catalogue(BUNDLE, ("mutant",)) if e.name == mutant)
    if entry.notebook == "attention_torch":
        pytest.importorskip("torch", reason="the torch notebook's public checks need torch")
    folder = write_submission(tmp_path / mutant, BUNDLE, entry)
    proc = run_check(release, poison, folder / f"{entry.notebook}.py")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (report,) = parse(proc.stdout)
    passed, message = report[item][check]
    assert not passed and phrase in message, message
    others = [c for i, checks in report.items() if i != item for c, (ok, _) in checks.items() if not ok]
    assert not others, others


def test_a_hang_is_reported_and_the_other_items_are_still_checked(release: Path, poison: Path, tmp_path: Path):
    entry = next(e for e in load_catalogue(BUNDLE, ("mutant",)) if e.name == "causal_mask_loops_forever")
    folder = write_submission(tmp_path / "hang", BUNDLE, entry)
    proc = run_check(release, poison, folder / "attention_numpy.py")
    assert proc.returncode == 1
    (report,) = parse(proc.stdout)
    first = next(iter(report["causal_mask"].values()))
    assert not first[0] and "did not finish within" in first[1], first
    assert all(ok for item, checks in report.items() if item != "causal_mask" for ok, _ in checks.values())


def test_jupyter_users_can_run_it_from_a_cell(release: Path, poison: Path):
    """``%run check.py x.ipynb`` runs the file as __main__ with that argv, and the shell must
    not see SystemExit; IPython's own %run is not needed to show it."""
    code = ("import runpy, sys, types\n"
            "shell = types.ModuleType('IPython'); shell.get_ipython = lambda: object()\n"
            "sys.modules['IPython'] = shell\n"
            f"sys.argv = ['check.py', 'attention_numpy.ipynb']\n"
            f"runpy.run_path({str(release / 'check.py')!r}, run_name='__main__')\n"
            "print('still here')\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=release, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(poison)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "public checks passed" in proc.stdout and proc.stdout.rstrip().endswith("still here")


@pytest.mark.parametrize("make, phrase", [
    (lambda d: d / "nope.ipynb", "no such file"),
    (lambda d: d, "not a file"),
    (lambda d: _write(d / "attention_numpy.txt", "x = 1"), "expected a notebook"),
    (lambda d: _write(d / "homework.ipynb", "{}"), "cannot tell which notebook"),
    (lambda d: _write(d / "attention_numpy.ipynb", "{not json"), "not a valid notebook"),
    (lambda d: "--verbose", "usage"),
])
def test_unusable_input_is_one_line_and_exit_2(release: Path, poison: Path, tmp_path: Path, make, phrase: str):
    proc = run_check(release, poison, make(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and phrase in proc.stderr and "Traceback" not in proc.stderr


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_public_check_that_needs_the_reference_is_refused():
    items = tuple(replace(i, public=(*i.public, "matches_definition")) if i.name == "softmax" else i
                  for i in BUNDLE.assignment.items)
    bundle: Bundle = replace(BUNDLE, assignment=replace(BUNDLE.assignment, items=items))
    with pytest.raises(GenerationError, match=r"softmax.matches_definition.*reference"):
        build_check_py(bundle)


def test_public_checks_give_the_graders_verdicts_and_messages(release: Path, poison: Path, tmp_path: Path):
    """Every catalogue entry through the real (sandboxed) grader and through check.py, with
    check.py's seed: each public check passes in both or fails in both with one message (a
    hang is reported in words of each's own, so there only the verdicts are compared)."""
    from grader.grade import grade

    entries = load_catalogue(BUNDLE)
    class_dir = tmp_path / "class"
    for entry in entries:
        write_submission(class_dir / entry.name, BUNDLE, entry)
    graded = {r.student: r for r in grade(BUNDLE, sorted(class_dir.iterdir()), local(2), seed=SEED,
                                          class_dir=class_dir)}
    for notebook in BUNDLE.assignment.notebooks:
        mine = [e for e in entries if e.notebook == notebook]
        proc = run_check(release, poison, *(class_dir / e.name / f"{notebook}.py" for e in mine))
        reports = parse(proc.stdout)
        assert len(reports) == len(mine), proc.stdout + proc.stderr
        for entry, report in zip(mine, reports, strict=True):
            for item in graded[entry.name].items:
                if item.notebook != notebook or not report.get(item.name):
                    continue
                for check in item.checks:
                    if check.name not in report[item.name]:
                        continue
                    passed, message = report[item.name][check.name]
                    where = f"{entry.name}: {item.name}.{check.name}"
                    assert passed == check.passed, f"{where}: grader {check.message!r}, check.py {message!r}"
                    if item.error is None:
                        assert message == check.message, where
