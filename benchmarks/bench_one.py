"""One submission at a time: the start-up that Gradescope, re-grades and check.py pay.

    python benchmarks/bench_grade.py --one              # 5 alternated rounds
    python benchmarks/bench_grade.py --one --rounds 9
    python benchmarks/bench_grade.py --one --against /tmp/main   # and another checkout's grader

Side by side, in one run, each on all cores and pinned to one core (``taskset -c 0``):

* **floor**: ``python -c "import numpy, torch"``, what any grader of these notebooks pays;
* **grade one**: ``python -m grader grade ONE --out OUT``, a class folder of one correct
  student (``synthetic.py``), to ``grades.csv`` and the other default outputs;
* **check.py**: the students' checker (``python -m grader release``) on that student's
  torch notebook;
* **gradescope**: the autograder zip (``python -m grader gradescope``) extracted as
  Gradescope does (``tests/test_gradescope.py``), its ``venv`` this interpreter's own (no
  ``setup.sh``, so no network), then ``run_autograder`` to ``results.json``.

``--against DIR`` adds the one student and the Gradescope run of another checkout of the
project (``git worktree add /tmp/main main``, say): its grader, its zip, the same student.

An untimed run of each comes first (a grader's first run writes its bytecode caches, as
any install does). Rounds alternate the order of the runs (forwards, then backwards), so
a drifting load falls on all alike. Printed: the median wall and CPU seconds (user + system of the run's
whole process tree, from the children's rusage) and the ratio of the wall time to the floor's.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import synthetic

PYTHON = sys.executable
ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_orphans() -> None:
    """What a run left to this process (a subreaper: ``bench_grade._become_subreaper``)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # Bytecode caches as any install writes them on first use (this machine's shell sets the
    # variable, and every run then compiled the grader's modules again: about 0.1 s).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PATH"] = os.pathsep.join([str(Path(PYTHON).parent), env.get("PATH", "")])
    return env


def _gradescope_env() -> dict[str, str]:
    """A fresh shell's environment (``tests/test_gradescope.clean_env``): nothing of this
    venv or this project."""
    keep = ("PATH", "LANG", "LC_ALL", "HOME", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PATH"] = ":".join(p for p in env.get("PATH", "/usr/bin:/bin").split(":")
                           if not p.startswith(sys.prefix) and ".venv" not in p)
    return env


class Case:
    """One command, run fresh each time: ``prepare`` (untimed) resets what it writes."""

    def __init__(self, name: str, command: list[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None,
                 prepare: Callable[[], None] = lambda: None, check: Callable[[], None] = lambda: None) -> None:
        self.name, self.command, self.cwd = name, command, cwd
        self.env = env if env is not None else _env()
        self.prepare, self.check = prepare, check

    def run(self, pinned: bool) -> tuple[float, float]:
        self.prepare()
        command = (["taskset", "-c", "0"] if pinned else []) + self.command
        cpu = _cpu()
        started = time.perf_counter()
        done = subprocess.run(command, cwd=self.cwd, env=self.env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        _reap_orphans()
        cpu = _cpu() - cpu
        if done.returncode != 0:
            raise RuntimeError(f"{self.name} failed ({done.returncode}): {' '.join(command)}\n"
                               f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        self.check()
        return wall, cpu


def _setup(work: Path, against: Path | None) -> list[Case]:
    student = synthetic.Student("s0000", "correct", "")
    one = work / "one"
    synthetic.build_class(one, [student])
    notebooks = one / student.name / synthetic.ASSIGNMENT_ID

    release = work / "release"
    made = subprocess.run([PYTHON, "-m", "grader", "release", "--out", str(release)], cwd=ROOT, env=_env(),
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise RuntimeError(f"grader release failed:\n{made.stderr[-3000:]}")
    floor = Case("floor: import numpy, torch", [PYTHON, "-c", "import numpy, torch"])
    check = Case("check.py on the torch notebook",
                 [PYTHON, str(release / "check.py"), str(notebooks / "attention_torch.ipynb")], cwd=work)
    ours = _grader_cases(work / "this", ROOT, one, notebooks, "")
    theirs = [] if against is None else _grader_cases(work / "against", against.resolve(), one, notebooks,
                                                      f" ({against.name})")
    return [floor, ours[0], *theirs[:1], check, ours[1], *theirs[1:]]


def _grader_cases(work: Path, root: Path, one: Path, notebooks: Path, label: str) -> list[Case]:
    """The one student graded, and Gradescope's run_autograder, by the grader of ``root``."""
    work.mkdir(parents=True)
    out = work / "out"
    # Gradescope's layout (tests/test_gradescope.py): the zip in source/, run_autograder beside it.
    grader_root = work / "autograder"
    zip_path = work / "autograder.zip"
    made = subprocess.run([PYTHON, "-m", "grader", "gradescope", "--out", str(zip_path)], cwd=root, env=_env(),
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise RuntimeError(f"grader gradescope failed:\n{made.stderr[-3000:]}")
    source = grader_root / "source"
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(source)
        for info in archive.infolist():  # extractall drops the modes
            os.chmod(source / info.filename, info.external_attr >> 16)
    shutil.copy2(source / "run_autograder", grader_root / "run_autograder")
    (grader_root / "venv").symlink_to(Path(sys.prefix))  # what setup.sh would have built
    # and the bytecode setup.sh compiles into the image
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(source)], check=True, capture_output=True)
    results = grader_root / "results"

    def fresh_out() -> None:
        shutil.rmtree(out, ignore_errors=True)

    def graded() -> None:
        assert (out / "grades.csv").is_file(), "no grades.csv"

    def fresh_submission() -> None:
        for folder in ("submission", "results"):
            shutil.rmtree(grader_root / folder, ignore_errors=True)
        shutil.copytree(notebooks, grader_root / "submission")
        results.mkdir()

    def scored() -> None:
        data = json.loads((results / "results.json").read_text())
        assert data.get("score", 0) > 0 and data.get("tests"), f"results.json: {data}"

    return [
        Case(f"one student: grade ONE --out OUT{label}",
             [PYTHON, "-m", "grader", "grade", str(one), "--out", str(out)], cwd=root, prepare=fresh_out,
             check=graded),
        Case(f"gradescope: run_autograder{label}", [str(grader_root / "run_autograder")], cwd=grader_root,
             env={**_gradescope_env(), "AUTOGRADER_ROOT": str(grader_root)}, prepare=fresh_submission, check=scored),
    ]


def run_one(work: Path, rounds: int, json_path: Path | None = None, against: Path | None = None) -> int:
    cases = _setup(work, against)
    runs = [(case, pinned) for pinned in (False, True) for case in cases]
    measured: dict[tuple[str, bool], list[tuple[float, float]]] = {(c.name, p): [] for c, p in runs}
    print(f"{len(os.sched_getaffinity(0))} cores; load average {os.getloadavg()[0]:.2f}; {rounds} rounds", flush=True)
    for case in cases:  # untimed: the bytecode caches written, the files in the page cache
        case.run(False)
    for number in range(rounds):
        for case, pinned in runs if number % 2 == 0 else runs[::-1]:
            measured[case.name, pinned].append(case.run(pinned))
        print(f"  round {number + 1} of {rounds} done (load average {os.getloadavg()[0]:.2f})", flush=True)
    table: dict[str, Any] = {}
    for pinned in (False, True):
        floor = statistics.median(w for w, _ in measured[cases[0].name, pinned])
        for case in cases:
            walls = [w for w, _ in measured[case.name, pinned]]
            cpus = [c for _, c in measured[case.name, pinned]]
            table[f"{case.name} | {'one core' if pinned else 'all cores'}"] = {
                "wall": statistics.median(walls), "cpu": statistics.median(cpus),
                "ratio": statistics.median(walls) / floor, "walls": walls, "cpus": cpus}
    print()
    print(f"{'':46s} {'all cores: wall s':>18s} {'CPU s':>6s} {'/floor':>7s}   "
          f"{'one core: wall s':>16s} {'CPU s':>6s} {'/floor':>7s}")
    for case in cases:
        row = f"{case.name:46s}"
        for pinned, width in ((False, 18), (True, 16)):
            cell = table[f"{case.name} | {'one core' if pinned else 'all cores'}"]
            row += f" {cell['wall']:{width}.2f} {cell['cpu']:6.2f} {cell['ratio']:6.2f}x  "
        print(row)
    print(f"  (medians of {rounds} alternated runs; CPU: user + system of each run's whole process tree; "
          f"load average now {os.getloadavg()[0]:.2f})")
    if json_path is not None:
        json_path.write_text(json.dumps({"rounds": rounds, "cores": len(os.sched_getaffinity(0)), "table": table},
                                        indent=1))
    return 0
