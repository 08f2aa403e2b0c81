"""End to end, as Gradescope runs it (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
``python -m grader gradescope`` builds the zip; its contents are extracted into
``/autograder/source``, ``run_autograder`` is copied to ``/autograder/run_autograder``,
``setup.sh`` builds ``/autograder/venv`` with pip (a fresh interpreter that has never seen
this project), and ``run_autograder`` runs from ``/autograder``, under half a CPU and 768 MB
(Gradescope's default limits), for each submission.

As root, ``/autograder`` is the real path: each command runs in a mount namespace of its own
where a temporary folder is bound on it (the host's ``/autograder`` is made, empty, where
missing, and removed after the tests). Otherwise ``AUTOGRADER_ROOT`` points the scripts at the temporary folder.
``setup.sh`` reaches the package index this machine's pip is configured with:
``TORCH_INDEX_URL=`` (empty) takes torch from there instead of PyTorch's CPU index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from bundle_support import BUNDLE_PATH
from cgroup_support import NoCgroup, limited
from gradescope_support import GRADESCOPE

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT, parse_assignment, read_yaml
from grader.gradescope_zip import leave_written_to_gradescope

pytest.importorskip("torch")
pytestmark = pytest.mark.timeout(900)

BUNDLE = load_bundle(BUNDLE_PATH)
SAMPLE = BUNDLE.root / "sample_class"
PROJECT = Path(__file__).resolve().parents[1]
CHECKS = [(item.name, check) for item in BUNDLE.assignment.items for check, _ in item.checks]
WRITTEN_NOTE = ("Written answers: quadratic_cost (2 points), luong_compare (2 points). Not graded by this "
                "autograder: your instructor grades them on Gradescope, as questions of their own.")
# Python's own interpreter (not this venv's), as a system's python3.11 would be.
BASE_PYTHON = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"


MOUNT_POINT = Path("/autograder")
AS_ROOT = os.geteuid() == 0 and shutil.which("unshare") is not None


@pytest.fixture(scope="module", autouse=True)
def mount_point() -> Iterator[None]:
    """As root, the host's ``/autograder`` that each command binds its folder on, in a mount
    namespace of its own: made for this module where missing and removed after it (a later
    extraction into ``/autograder`` must find no folder it did not make); one that was already
    there is left as it was."""
    made = AS_ROOT and not MOUNT_POINT.exists()
    if made:
        MOUNT_POINT.mkdir()
    yield
    if made:
        MOUNT_POINT.rmdir()  # empty: nothing was ever written through it on the host


def at_autograder(root: Path, command: list[str], env: dict[str, str], **kwargs) -> subprocess.CompletedProcess[str]:
    """``command`` run from ``/autograder`` with ``root`` as ``/autograder``."""
    env = dict(env)
    if AS_ROOT:
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                   'mount --bind "$0" /autograder && cd /autograder && exec "$@"', str(root), *command]
    else:
        env["AUTOGRADER_ROOT"] = str(root)
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, **kwargs)


def clean_env() -> dict[str, str]:
    """The environment of a fresh shell: nothing of this venv or this project."""
    keep = ("PATH", "LANG", "LC_ALL", "HOME", "TMPDIR") + tuple(k for k in os.environ if k.startswith("PIP_"))
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PATH"] = ":".join(p for p in env.get("PATH", "/usr/bin:/bin").split(":")
                           if not p.startswith(sys.prefix) and ".venv" not in p)
    return env


def extract(zip_path: Path, root: Path) -> None:
    """What Gradescope does with the zip: its contents into source/, run_autograder beside it."""
    source = root / "source"
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(source)
        for info in archive.infolist():  # extractall drops the modes
            os.chmod(source / info.filename, info.external_attr >> 16)
    shutil.copy2(source / "run_autograder", root / "run_autograder")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The zip, extracted, and setup.sh run: (the zip, the /autograder folder)."""
    tmp = tmp_path_factory.mktemp("gradescope")
    zip_path = tmp / "autograder.zip"
    made = subprocess.run([sys.executable, "-m", "grader", "gradescope", "--out", str(zip_path)], cwd=PROJECT,
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    root = tmp / "autograder"
    root.mkdir()
    extract(zip_path, root)
    # The system's Python 3.11+ as setup.sh looks for it on PATH (on Gradescope, apt installs it).
    (tmp / "bin").mkdir()
    (tmp / "bin" / BASE_PYTHON.name).symlink_to(BASE_PYTHON)
    # A fresh image's PATH: the system's folders, not this machine's (CI puts every pyenv
    # Python on it, and setup.sh would take the newest, whose torch is no local CPU wheel).
    env = clean_env()
    env.update(PATH=f"{tmp / 'bin'}:/usr/bin:/bin", TORCH_INDEX_URL="")
    setup = at_autograder(root, ["bash", "/autograder/source/setup.sh" if os.geteuid() == 0 else
                                 str(root / "source" / "setup.sh")], env, timeout=900)
    assert setup.returncode == 0, setup.stdout[-4000:] + setup.stderr[-4000:]
    assert f"setup.sh: {tmp / 'bin' / BASE_PYTHON.name} " in setup.stdout  # the Python it found
    assert "grader 0." in setup.stdout  # the venv imports the zip's grader with its dependencies
    return zip_path, root


def grade_submission(root: Path, notebooks: Path | None) -> tuple[subprocess.CompletedProcess[str], dict, int | None]:
    """``/autograder/run_autograder`` on ``notebooks`` (None: no submission folder at all),
    as Gradescope runs it: from /autograder, in a cgroup of half a CPU and 768 MB where this
    host allows one. The run's output, results.json, and the cgroup's peak memory."""
    for folder in ("submission", "results"):
        shutil.rmtree(root / folder, ignore_errors=True)
    if notebooks is not None:
        # Uploaded straight into submission/; a link stays a link, as git, tar and unzip keep it.
        shutil.copytree(notebooks, root / "submission", symlinks=True)
    (root / "results").mkdir()
    command = ["/autograder/run_autograder" if os.geteuid() == 0 else str(root / "run_autograder")]
    try:
        with limited(0.5, 768) as group:
            done = at_autograder(root, command, clean_env(), timeout=600, preexec_fn=group.enter)
            peak = group.peak_bytes()
            assert group.oom_kills() == 0, f"the out-of-memory killer ended a process: {done.stdout}{done.stderr}"
    except NoCgroup as exc:
        print(f"no cgroup limits: {exc}")
        done, peak = at_autograder(root, command, clean_env(), timeout=600), None
    data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, GRADESCOPE)
    return done, data, peak


def test_the_zip_holds_everything_in_its_root_and_no_other_students_work(built: tuple[Path, Path]):
    zip_path, root = built
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"setup.sh", "run_autograder", "requirements.txt", "grader", "reference", "assignment"}
    assert not any({"sample_class", "catalogue", "__pycache__"} & set(name.split("/")) for name in names)
    source = root / "source"
    assert os.access(source / "setup.sh", os.X_OK) and os.access(root / "run_autograder", os.X_OK)
    setup = (source / "setup.sh").read_text()
    assert "TORCH_INDEX_URL-https://download.pytorch.org/whl/cpu}" in setup and "torch==2.13.0" in setup
    pins = [line for line in (source / "requirements.txt").read_text().splitlines()
            if line and not line.startswith("#")]
    assert pins and all("==" in pin for pin in pins) and any(pin.startswith("numpy==") for pin in pins)
    assert not any(pin.startswith(("torch", "nbgrader", "pytest")) for pin in pins)
    yaml_path = source / "assignment" / "assignment.yaml"
    zipped = parse_assignment(read_yaml(yaml_path), yaml_path)  # not imported: its reference is another copy
    assert [(i.name, i.checks) for i in zipped.items] == [(i.name, i.checks) for i in BUNDLE.assignment.items]


def test_the_venv_is_fresh(built: tuple[Path, Path]):
    _, root = built
    found = subprocess.run([str(root / "venv" / "bin" / "python"), "-c",
                            "import importlib.util as u; print(u.find_spec('grader'), u.find_spec('torch').origin)"],
                           cwd="/", capture_output=True, text=True, timeout=60, env=clean_env())
    assert found.returncode == 0, found.stderr
    grader, torch = found.stdout.split()[0], found.stdout.split()[-1]
    assert grader == "None"  # outside source/, the venv has no grader: only run_autograder's cd finds it
    assert torch.startswith(str(root / "venv"))


def test_a_correct_student_gets_full_marks(built: tuple[Path, Path]):
    _, root = built
    done, data, peak = grade_submission(root, SAMPLE / "Ada Lovelace" / "attention")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "grader 0." in done.stdout and "/autograder/source/grader" in done.stdout.replace(str(root), "/autograder")
    assert data["score"] == BUNDLE.assignment.items_points and data["stdout_visibility"] == "hidden"
    assert [t["name"] for t in data["tests"]] == [f"{item}: {check}" for item, check in CHECKS]
    assert all(t["status"] == "passed" for t in data["tests"])
    assert sum(t["max_score"] for t in data["tests"]) == BUNDLE.assignment.items_points  # the written answers: none
    assert WRITTEN_NOTE in data["output"]
    print(f"the cgroup's peak memory, page cache included: {peak and peak // 2**20} MB")


def test_a_broken_student_gets_a_row_with_messages(built: tuple[Path, Path], sample_grades):
    _, root = built
    done, data, _ = grade_submission(root, SAMPLE / "Zoë Çelik" / "attention")
    assert done.returncode == 0, done.stdout + done.stderr
    # The autograder draws its own seed: her mistakes cost the same points with any seed.
    assert data["score"] == sum(sample_grades(11)["Zoë Çelik"].values())
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert failed and all(t["output"] and t["output"] != "failed" for t in failed)
    text = json.dumps(data)
    assert "/autograder" not in text and str(root) not in text  # nothing of the autograder's side


def test_links_into_the_reference_earn_nothing(built: tuple[Path, Path], tmp_path: Path):
    _, root = built
    reference = Path("/autograder/source/reference") if AS_ROOT else root / "source" / "reference"
    for notebook in BUNDLE.assignment.notebooks:
        (tmp_path / f"{notebook}.py").symlink_to(reference / f"{notebook}.py")
    done, data, _ = grade_submission(root, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert data["score"] == 0
    assert "attention_numpy.py is a symbolic link: not read; submit the file itself" in json.dumps(data)


def test_a_run_that_cannot_grade_still_writes_results(built: tuple[Path, Path]):
    _, root = built
    done, data, _ = grade_submission(root, None)  # no submission folder at all
    assert done.returncode == 1
    assert data["score"] == 0 and "could not grade" in data["output"]


def test_out_naming_a_folder_is_a_one_line_error(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "grader", "gradescope", "--out", str(tmp_path)], cwd=PROJECT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"error: gradescope: --out {tmp_path} is a folder; give the zip's file name, e.g. "
                           f"--out {tmp_path / 'autograder.zip'}\n")
    assert list(tmp_path.iterdir()) == []


def test_a_stopped_run_says_so_in_one_line_and_the_student_is_told(tmp_path: Path):
    """Gradescope's harness, or the end of its container, stops a run with SIGTERM: the run
    ends its workers and sandboxes as on Ctrl-C (``grader.stop``), and still writes results."""
    script = ("import signal, sys\nfrom grader import gradescope_zip\n"
              "gradescope_zip.run_autograder = lambda root: signal.raise_signal(signal.SIGTERM)\n"
              "sys.exit(gradescope_zip.main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=PROJECT, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stderr) == (143, "stopped by SIGTERM: the submission was not graded\n")
    data = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert data["score"] == 0 and "could not grade" in data["output"]


def test_the_written_answers_are_left_to_gradescopes_own_questions():
    """The autograder's points are the checks' alone: a test that counts a written answer is
    dropped (with its points), and the output tells the student who grades the answers."""
    checks = [{"name": "softmax: rows_sum_to_one", "score": 2.0, "max_score": 2.0}]
    data = {"score": 4.0, "execution_time": 1, "stdout_visibility": "hidden", "output": "Score: 4 / 6",
            "tests": [*checks, {"name": "quadratic_cost: awaits a grader", "score": 2.0, "max_score": 2.0}]}
    left = leave_written_to_gradescope(data, BUNDLE.assignment)
    jsonschema.validate(left, GRADESCOPE)
    assert left["tests"] == checks and left["score"] == 2.0
    assert left["output"] == f"Score: 4 / 6\n{WRITTEN_NOTE}"
    untouched = {**data, "tests": checks, "score": 2.0}
    assert leave_written_to_gradescope(untouched, BUNDLE.assignment)["score"] == 2.0
    without = parse_assignment({**read_yaml(DEFAULT_ASSIGNMENT), "written": {}, "notebooks": {
        nb: {"items": spec["items"]} for nb, spec in read_yaml(DEFAULT_ASSIGNMENT)["notebooks"].items()}},
        DEFAULT_ASSIGNMENT)
    assert leave_written_to_gradescope(untouched, without) == untouched
