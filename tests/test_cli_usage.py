"""End to end: what the real CLI says to an instructor who gives it the wrong thing.

Every usage error is one line on stderr, exit status 2, naming the thing and the fix; a
class whose notebooks are misnamed, misplaced or unreadable is graded, and the end of the
run lists them, with the entries of the class folder that were skipped.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_support import shown

from grader import __version__
from grader.assignment.config import DEFAULT_ASSIGNMENT, Assignment, parse_assignment, read_yaml
from grader.extras import REQUIRED, install_command


def _read_assignment(path: Path | str, known_checks: dict[str, set[str]] | None = None) -> Assignment:
    """The YAML alone, validated (the bundle would import its checks and reference too)."""
    return parse_assignment(read_yaml(Path(path)), Path(path), known_checks)


ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"
SAMPLE = DEFAULT_ASSIGNMENT.parent / "sample_class"


def cli(*args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = f"{prelude}\nimport sys\nfrom grader.cli import main\nsys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600)


def one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_out_naming_an_existing_file(tmp_path: Path):
    (tmp_path / "grades").write_text("not a folder")
    one_line_error(cli("grade", str(SAMPLE), "--out", str(tmp_path / "grades")),
                   "a file is in the way; give a folder")


def test_an_empty_class_folder(tmp_path: Path):
    (tmp_path / "class" / ".git").mkdir(parents=True)
    one_line_error(cli("grade", str(tmp_path / "class"), "--out", str(tmp_path / "out")),
                   "no student folders in it")
    assert not (tmp_path / "out").exists()


def test_one_students_folder_given_as_the_class(tmp_path: Path):
    # Ids are data: its one folder, named as the assignment, is graded as a student, and the run says so.
    proc = cli("grade", str(SAMPLE / "Ada Lovelace"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert (f"note: {SAMPLE / 'Ada Lovelace'} holds one student, attention, named as the assignment: graded as a "
            "student; if it is one student's folder, give the folder that holds one folder per student"
            in proc.stderr.splitlines())


def test_jobs_below_one(tmp_path: Path):
    one_line_error(cli("grade", str(SAMPLE), "--out", str(tmp_path / "out"), "--jobs", "0"),
                   "--jobs 0: give 1 or more")


def test_scheduler_without_the_cluster_extra(tmp_path: Path):
    # As if dask were not installed, whatever this environment has.
    proc = cli("grade", str(SAMPLE), "--out", str(tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:1",
               prelude="import sys; sys.modules['distributed'] = None")
    one_line_error(proc, install_command("cluster"))
    assert not (tmp_path / "out").exists()


def test_release_without_the_course_extra_names_the_interpreter_it_looked_in(tmp_path: Path):
    proc = cli("release", "--out", str(tmp_path / "release"), prelude="import sys; sys.modules['nbgrader'] = None")
    one_line_error(proc, f"which is not installed for {sys.executable}: ",
                   install_command("course"), "venv")
    assert "attention-autograder[" not in proc.stderr  # on no index: pip could not install it by name


def test_nbgrader_without_the_course_extra(tmp_path: Path):
    proc = cli("grade", "--nbgrader", str(tmp_path), prelude="import sys; sys.modules['nbgrader'] = None")
    one_line_error(proc, "--nbgrader needs nbgrader", install_command("course"))


def test_an_interpreter_without_the_dependencies_is_one_line_naming_it_and_the_install(tmp_path: Path):
    """From the checkout, with an interpreter that has none of the dependencies (-S: no
    site-packages), as the system's python3 outside the venv: no traceback, nothing written."""
    for args in (["grade", str(SAMPLE), "--out", str(tmp_path / "out")],
                 ["grade", str(SAMPLE), "--out", str(tmp_path / "out"), "--no-progress"],
                 ["release", "--out", str(tmp_path / "release")], ["audit"]):
        proc = subprocess.run([sys.executable, "-S", "-m", "grader", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=600)
        one_line_error(proc, f"{args[0]} needs numpy", f"not installed for {sys.executable}: ",
                       ".venv/bin/python -m grader", f"{sys.executable} -m pip install -e '.'")
    assert not list(tmp_path.iterdir())


def test_one_missing_dependency_is_named(tmp_path: Path):
    proc = cli("grade", str(SAMPLE), "--out", str(tmp_path / "out"), "--no-progress",
               prelude="import sys; sys.modules['tqdm'] = None")
    one_line_error(proc, "grade needs tqdm, which is not installed for")
    assert not (tmp_path / "out").exists()


def test_the_dependencies_checked_are_pyprojects():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    assert block
    declared = {re.split(r"[<>=!~\[ ]", name)[0].lower() for name in re.findall(r'"([^"]+)"', block.group(1))}
    assert set(REQUIRED.values()) == declared - {"torch"}


def test_the_command_names_itself_as_invoked():
    installed = "import sys; sys.argv[0] = '/venv/bin/attention-grader'"  # what the installed script sees
    proc = cli("--version", prelude=installed)
    assert proc.returncode == 0 and proc.stdout == f"attention-grader {__version__}\n"
    usage = cli("grade", "--jobs", prelude=installed)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: attention-grader grade ")
    module = subprocess.run([sys.executable, "-m", "grader", "--version"], capture_output=True, text=True,
                            cwd=ROOT, timeout=600)
    assert module.returncode == 0 and module.stdout == f"python -m grader {__version__}\n"


def test_misnamed_misplaced_and_unreadable_notebooks_are_graded_and_listed(tmp_path: Path):
    pytest.importorskip("torch")
    class_dir = tmp_path / "class"
    uploads = {
        "copied": {"attention_numpy (1).py": "attention_numpy", "attention_torch.py": "attention_torch"},
        "nested": {"upload/attention_numpy.py": "attention_numpy", "upload/attention_torch.py": "attention_torch"},
        "garbled": {"attention_numpy.ipynb": None, "attention_torch.py": "attention_torch"},
        "partial": {"attention_numpy.py": "attention_numpy"},
    }
    for student, files in uploads.items():
        for name, module in files.items():
            path = class_dir / student / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if module is None:
                path.write_text("{not json")
            else:
                shutil.copyfile(REFERENCE / f"{module}.py", path)
    (class_dir / ".ipynb_checkpoints").mkdir()
    (class_dir / "roster.csv").write_text("id\n")
    proc = cli("grade", str(class_dir), "--out", str(tmp_path / "out"), "--seed", "3", "--jobs", "2", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    grades = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()
    full, torch_only, numpy_only = (f"{points:g}" for points in totals())
    assert [line.split(",")[:2] for line in grades[1:]] == [["copied", full], ["garbled", torch_only],
                                                            ["nested", full], ["partial", numpy_only]]
    out = proc.stdout
    assert "  copied: attention_numpy: graded attention_numpy (1).py: its name is not attention_numpy.py" in out
    assert ("  nested: attention_numpy: graded upload/attention_numpy.py: it is not in the student's folder "
            "or its attention/ folder") in out
    assert "  garbled: attention_numpy: attention_numpy.ipynb could not be read: not a valid notebook" in out
    assert "  partial: attention_torch missing (attention_torch.ipynb was not submitted)" in out
    assert "  .ipynb_checkpoints (its name begins with '.')" in out
    assert "  roster.csv (a file, not a student's folder)" in out
    feedback = shown((tmp_path / "out" / "feedback" / "copied.md").read_text(encoding="utf-8"))
    assert "graded attention_numpy (1).py: its name is not attention_numpy.py" in feedback


def test_a_finished_module_beats_an_untouched_stub_notebook_and_the_stub_is_reported(tmp_path: Path):
    stub = SAMPLE / "Blank Student" / "attention" / "attention_numpy.ipynb"
    student = tmp_path / "class" / "both"
    student.mkdir(parents=True)
    shutil.copyfile(stub, student / "attention_numpy.ipynb")
    shutil.copyfile(REFERENCE / "attention_numpy.py", student / "attention_numpy.py")
    proc = cli("grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--seed", "3", "--jobs", "1",
               "--no-progress")
    assert proc.returncode == 0, proc.stderr
    grades = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()
    items = _read_assignment(DEFAULT_ASSIGNMENT).items_of("attention_numpy")
    assert grades[1].split(",")[:2] == ["both", f"{sum(i.points for i in items):g}"]  # every NumPy item, from the .py
    note = (f"graded attention_numpy.py: passed over attention_numpy.ipynb ({len(items)} exercises still raising "
            "NotImplementedError there, 0 in the one graded)")
    assert f"  both: attention_numpy: {note}" in proc.stdout
    assert note in shown((tmp_path / "out" / "feedback" / "both.md").read_text(encoding="utf-8"))
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8").splitlines()[1])
    assert results["notebooks"][0]["note"] == note


def test_a_module_runs_statement_by_statement_and_a_syntax_error_names_its_line(tmp_path: Path):
    module = (REFERENCE / "attention_numpy.py").read_text(encoding="utf-8")
    lines = module.count("\n")
    student = tmp_path / "class" / "modules"
    student.mkdir(parents=True)
    (student / "attention_numpy.py").write_text(
        "import seaborn_is_not_here\n" + module + "\ndef broken(x:\n    return x\n\nraise RuntimeError('demo')\n",
        encoding="utf-8")
    proc = cli("grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--seed", "3", "--jobs", "1",
               "--no-progress")
    assert proc.returncode == 0, proc.stderr
    grades = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()
    numpy_points = sum(i.points for i in _read_assignment(DEFAULT_ASSIGNMENT).items_of("attention_numpy"))
    assert grades[1].split(",")[:2] == ["modules", f"{numpy_points:g}"]  # the failing import cost no definition
    feedback = shown((tmp_path / "out" / "feedback" / "modules.md").read_text(encoding="utf-8"))
    assert ("line 1 (import seaborn_is_not_here) raised `ModuleNotFoundError: No module named "
            "'seaborn_is_not_here'` while the notebook ran (the statements after it still ran).") in feedback
    assert (f"line {lines + 3} (def broken(x:) raised `SyntaxError: '(' was never closed (line {lines + 3})`"
            in feedback)
    assert (f"line {lines + 6} (raise RuntimeError('demo')) raised `RuntimeError: demo` while the notebook "
            "ran.\n") in feedback  # nothing follows it


def test_a_notebook_over_the_size_limit_says_how_to_shrink_it(tmp_path: Path):
    student = tmp_path / "class" / "big"
    student.mkdir(parents=True)
    picture = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "A" * (21 * 1024 * 1024)}}
    cell = {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "x = 1", "outputs": [picture]}
    (student / "attention_numpy.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                                               "nbformat_minor": 5}))
    proc = cli("grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--jobs", "1", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    why = ("attention_numpy.ipynb could not be read: the file is 21 MiB, more than 20 MiB; clear the outputs "
           "(Kernel > Restart & Clear Output) and save it again")
    assert why in proc.stdout
    assert why in shown((tmp_path / "out" / "feedback" / "big.md").read_text(encoding="utf-8"))


def test_a_progress_bar_shows_a_class_and_not_one_submission(tmp_path: Path):
    for count in (1, 2):
        for number in range(count):
            student = tmp_path / f"class{count}" / f"s{number}"
            student.mkdir(parents=True)
            for notebook in ("attention_numpy", "attention_torch"):
                shutil.copyfile(REFERENCE / f"{notebook}.py", student / f"{notebook}.py")
    one = cli("grade", str(tmp_path / "class1"), "--out", str(tmp_path / "out1"))
    two = cli("grade", str(tmp_path / "class2"), "--out", str(tmp_path / "out2"), "--jobs", "1")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    # One submission's summary follows at once: a bar would say nothing more.
    assert "student/s" not in one.stderr and "2/2" in two.stderr


def test_the_docs_give_graders_the_cpu_build_of_torch_and_the_venvs_interpreter():
    root = Path(__file__).resolve().parents[1]
    cpu = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    install = (root / "docs" / "instructors" / "install.md").read_text(encoding="utf-8")
    assert cpu in (root / "README.md").read_text(encoding="utf-8") and cpu in install
    # The install page sends the reader to the venv's interpreter before any command runs.
    assert install.index(cpu) < install.index("source .venv/bin/activate")


def totals() -> tuple[float, float, float]:
    """The bundle's full marks, and those of its torch and its numpy notebook, from its YAML."""
    assignment = parse_assignment(read_yaml(DEFAULT_ASSIGNMENT), DEFAULT_ASSIGNMENT)

    def of(notebook: str) -> float:
        return sum(points for item in assignment.items_of(notebook) for _, points in item.checks)

    return assignment.items_points, of("attention_torch"), of("attention_numpy")
