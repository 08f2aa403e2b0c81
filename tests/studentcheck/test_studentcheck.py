"""The students' check.py (``grader.studentcheck``): generated from the grader's own public
checks, it runs without this package or the reference, finds the classic bugs, reports a
hang as a hang, and gives every public check the grader's verdict and message."""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from grader.assignment.bundle import Bundle, load_bundle
from grader.assignment.catalogue import load_catalogue, write_submission
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.render.feedback_text import NOT_ATTEMPTED
from grader.studentcheck.build import SEED, GenerationError, build_check_py

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
    assert_written_answers_are_left_to_a_person(proc.stdout)


def assert_written_answers_are_left_to_a_person(stdout: str) -> None:
    """Each notebook's written answers are listed with their points as a person's to grade,
    never as failed or not attempted."""
    for notebook in BUNDLE.assignment.notebooks:
        questions = BUNDLE.assignment.written_of(notebook)
        listed = ", ".join(f"{q.id} ({q.points:g} points)" for q in questions)
        line = f"  written answers, graded by a person (check.py does not read them): {listed}\n"
        assert (line in stdout) == bool(questions), (notebook, stdout)
        for question in questions:
            assert not re.search(rf"^.*\b{question.id}\b.*({NOT_ATTEMPTED}|FAIL)", stdout, re.MULTILINE)
    assert BUNDLE.assignment.written  # the bundle has some to list
    assert f"Your written answers ({BUNDLE.assignment.written_points:g} points) are graded by a person." in stdout


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
    ("softmax_no_max_shift", "softmax", "stable_for_large_inputs", "subtract each row's own maximum"),
    ("softmax_ignores_axis", "softmax", "honours_axis", "normalise along the given axis"),
    ("softmax_clips_inputs", "softmax", "neg_inf_gets_zero_weight", "must get weight exactly 0"),
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


def test_a_killed_checker_takes_its_looping_child_with_it(release: Path, poison: Path, tmp_path: Path):
    """SIGTERM, a closed terminal or kill -9 ends check.py at once, without its clean-up: the
    child, looping in the student's code (silent: nothing it writes would find the pipe gone),
    must not run on."""
    (tmp_path / "attention_numpy.py").write_text("while True:\n    pass\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(poison), "HOME": str(release)}
    checker = subprocess.Popen([sys.executable, str(release / "check.py"), str(tmp_path / "attention_numpy.py")],
                               cwd=release, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    child = None
    try:
        deadline = time.monotonic() + 60
        while not (children := Path(f"/proc/{checker.pid}/task/{checker.pid}/children").read_text().split()):
            assert time.monotonic() < deadline and checker.poll() is None, "no child started"
            time.sleep(0.02)
        child = os.pidfd_open(int(children[0]))
        checker.kill()
        checker.wait()
        assert select.select([child], [], [], 10)[0], "the child runs on"
    finally:
        if checker.poll() is None:
            checker.kill()
            checker.wait()
        if child is not None:  # one that outlived it is this test's to end (its pidfd: never another's)
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(child, signal.SIGKILL)
            os.close(child)


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


def test_every_check_that_needs_no_reference_is_public():
    """The rule of the YAML: a check is hidden only when it compares with the reference, so a
    student who passes check.py meets nothing else in the grade (a hidden check that could be
    built into check.py should be public)."""
    could_be_public = []
    for item in BUNDLE.assignment.items:
        for name, _ in item.checks:
            if name in item.public:
                continue
            trial = replace(item, public=(*item.public, name))
            items = tuple(trial if i.name == item.name else i for i in BUNDLE.assignment.items)
            try:
                build_check_py(replace(BUNDLE, assignment=replace(BUNDLE.assignment, items=items)))
            except GenerationError as exc:
                assert "reference" in str(exc), exc
            else:
                could_be_public.append(f"{item.name}.{name}")
    assert not could_be_public


def test_public_checks_give_the_graders_verdicts_and_messages(release: Path, poison: Path, tmp_path: Path):
    """Every catalogue entry through the real (sandboxed) grader and through check.py, with
    check.py's seed: each public check passes in both or fails in both with one message (a
    hang is reported in words of each's own, so there only the verdicts are compared)."""
    from grader.run.classrun import grade, prepare_run

    entries = load_catalogue(BUNDLE)
    class_dir = tmp_path / "class"
    for entry in entries:
        write_submission(class_dir / entry.name, BUNDLE, entry)
    folders = sorted(class_dir.iterdir())
    with prepare_run(BUNDLE, class_dir, len(folders), seed=SEED, jobs=2, log=lambda line: None) as run:
        graded = {r.student: r for r in grade(run, folders)}
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


def _venv_with(tmp_path: Path, keep) -> Path:
    """A fresh venv whose site-packages holds links to this environment's packages for which
    ``keep(name)`` is true: a student's Python with only what the course promised."""
    import numpy

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    ours = Path(numpy.__file__).resolve().parents[1]
    for entry in ours.iterdir():
        if keep(entry.name.lower()):
            (site / entry.name).symlink_to(entry)
    return tmp_path / "venv" / "bin" / "python"


def test_with_only_numpy_the_numpy_notebook_is_checked_and_torch_is_named_in_one_line(release: Path, tmp_path: Path):
    python = _venv_with(tmp_path, lambda name: name == "numpy" or name.startswith(("numpy.", "numpy-")))
    proc = subprocess.run([str(python), str(release / "check.py")], cwd=release, capture_output=True, text=True,
                          timeout=600)
    reports = parse(proc.stdout)
    assert reports[0] and all(ok for checks in reports[0].values() for ok, _ in checks.values()), proc.stdout
    assert proc.stderr == (f"check.py: attention_torch.ipynb: needs torch, which this Python does not have; "
                           f"install it with: {python} -m pip install torch --index-url "
                           "https://download.pytorch.org/whl/cpu\n")  # the CPU build, not pip's CUDA one
    assert proc.returncode == 2
    python = _venv_with(tmp_path / "bare", lambda name: False)
    proc = subprocess.run([str(python), str(release / "check.py")], cwd=release, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 2 and proc.stderr == (f"check.py: needs numpy, which this Python does not have; "
                                                    f"install it with: {python} -m pip install numpy\n")


def test_without_matplotlib_or_ipython_every_notebook_is_checked(release: Path, tmp_path: Path):
    pytest.importorskip("torch")
    python = _venv_with(tmp_path, lambda name: not name.startswith(("matplotlib", "mpl_toolkits", "ipython",
                                                                    "seaborn")))
    proc = subprocess.run([str(python), str(release / "check.py")], cwd=release, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    items = BUNDLE.assignment.items
    assert [list(report) for report in parse(proc.stdout)] == [
        [i.name for i in items if i.notebook == nb and i.public] for nb in BUNDLE.assignment.notebooks]


def test_a_module_is_checked_statement_by_statement_and_a_syntax_error_names_its_line(release: Path, poison: Path,
                                                                                     tmp_path: Path):
    module = (BUNDLE.reference_dir / "attention_numpy.py").read_text(encoding="utf-8")
    path = tmp_path / "attention_numpy.py"
    path.write_text("import seaborn_is_not_here\n" + module + "\ndef broken(x:\n    return x\n", encoding="utf-8")
    proc = run_check(release, poison, path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = module.count("\n") + 3
    note = f"  note: line {line} (def broken(x:) raised SyntaxError: '(' was never closed (line {line})\n"
    assert note in proc.stdout
    assert "  note: line 1 (import seaborn_is_not_here) raised ModuleNotFoundError" in proc.stdout


def test_an_untouched_release_is_one_line_per_item_not_attempted(release: Path, poison: Path, tmp_path: Path):
    """The released stubs: each item says once that it was not attempted, as the feedback does,
    not one FAIL ... NotImplementedError line per check."""
    pytest.importorskip("torch", reason="the torch notebook's public checks need torch")
    shutil.copy(release / "check.py", tmp_path / "check.py")
    for notebook in BUNDLE.release:
        shutil.copy(SAMPLE.parent.parent / "Blank Student" / "attention" / notebook, tmp_path / notebook)
    proc = run_check(tmp_path, poison)
    assert proc.returncode == 1, proc.stderr
    assert "NotImplementedError" not in proc.stdout.replace(NOT_ATTEMPTED, "")
    unattempted = re.findall(rf"^  (\w+) +{re.escape(NOT_ATTEMPTED)}$", proc.stdout, re.MULTILINE)
    items = [item.name for item in BUNDLE.assignment.items if item.public]
    assert sorted(unattempted) == sorted(items)
    assert "FAIL" not in proc.stdout
    assert_written_answers_are_left_to_a_person(proc.stdout)


def test_a_notebook_missing_beside_check_py_is_one_line_and_the_other_is_checked(release: Path, poison: Path,
                                                                                  tmp_path: Path):
    shutil.copy(release / "check.py", tmp_path / "check.py")
    present, *absent = BUNDLE.release
    shutil.copy(release / present, tmp_path / present)
    proc = run_check(tmp_path, poison)
    reports = parse(proc.stdout)
    assert len(reports) == 1 and reports[0] and all(ok for c in reports[0].values() for ok, _ in c.values())
    assert proc.stderr.count("\n") == 1 and all(name in proc.stderr for name in absent), proc.stderr
    assert present not in proc.stderr and "not checked" in proc.stderr
    assert proc.returncode == 2  # as for any file it could not check
