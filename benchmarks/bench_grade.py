"""Benchmark: our grader vs nbgrader autograde vs the in-process floor, on one synthetic class.

    python benchmarks/bench_grade.py --n 20                      # all three, side by side
    python benchmarks/bench_grade.py --n 200 --nbgrader-n 20     # nbgrader timed on 20, scaled
    python benchmarks/bench_grade.py --n 1000 --skip-nbgrader --skip-floor   # the 3-minute target
    python benchmarks/bench_grade.py --n 500 --skip-nbgrader --skip-floor    # peak RSS vs N
    python benchmarks/bench_grade.py --n 1000 --jobs-sweep 1,2,4,8,16       # the scaling table
    python benchmarks/bench_grade.py --one --rounds 5           # one submission's start-up (bench_one.py)
    python benchmarks/bench_grade.py --n 1000 --against 9c23c23   # this tree against a commit (bench_against.py)

The class (``benchmarks/synthetic.py``) is made from the source notebooks in nbgrader's
layout: mostly correct students, some with a catalogue mutant, a few whose softmax loops
forever, a few whose numpy notebook is truncated JSON.

Measured, each in its own process, in one run:

* **ours**: ``python -m grader grade`` (sandboxed, warm workers, ``--jobs``); total wall
  time and the median of ``seconds`` per student in ``results.json``; peak memory of its
  process tree (main + workers + zygotes + sandboxes), sampled from ``/proc``.
* **nbgrader**: ``nbgrader generate_assignment`` on the source notebooks (hidden tests call
  the same checks via ``grader.nbgrader.hidden_tests.assert_item``), the students' notebooks copied to
  ``submitted/``, then ``nbgrader autograde`` (``ExecutePreprocessor.timeout = 30``), on a
  subset of ``--nbgrader-n`` students with the class's mix; per student from nbgrader's
  own log timestamps; the class total scaled to N.
* **floor**: one warm process runs the same checks on each submission with no isolation
  (``InProcessRunner.from_source`` + ``grade_submission``, with the diagnosis of known
  mistakes that our run makes by default; pyplot stubbed as in a sandbox), after one
  untimed warm-up submission. The hanging students are skipped there: without a
  sandbox nothing could stop them.

Medians are over the students each tool graded; ``ours/floor`` compares the same students.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import synthetic  # noqa: E402

PYTHON = sys.executable


# ---- memory of a process tree -------------------------------------------------------------

def _status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _pss_kb(pid: int) -> int:
    """The process's proportional set size: from ``smaps_rollup``, or summed over ``smaps``
    where a kernel has no rollup (gVisor)."""
    for name in ("smaps_rollup", "smaps"):
        try:
            with open(f"/proc/{pid}/{name}") as handle:
                found = [int(line.split()[1]) for line in handle if line.startswith("Pss:")]
        except (OSError, ValueError, IndexError):
            continue
        if found:
            return sum(found)
    return 0


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _threads(pid: int) -> int:
    """A worker watches its channel from a thread of its own; a zygote has one thread."""
    return _status_kb(pid, "Threads:")


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@dataclass
class TreeMemory:
    """Samples a process tree: each process's own peak (VmHWM) by role, and the peak of the
    tree's total proportional set size (shared pages counted once)."""

    root: int
    interval: float = 0.1
    hwm: dict[int, int] = field(default_factory=dict)  # pid -> VmHWM kB
    role: dict[int, str] = field(default_factory=dict)
    peak_pss_kb: int = 0
    peak_pair_pss_kb: int = 0  # the largest worker, or zygote with its sandbox, PSS
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> TreeMemory:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> None:
        tree = _children()
        parent = {kid: p for p, kids in tree.items() for kid in kids}
        todo, seen = [self.root], []
        while todo:
            pid = todo.pop()
            seen.append(pid)
            todo += tree.get(pid, [])
        total = 0
        pss: dict[int, int] = {}
        for pid in seen:
            # A worker starts the thread that tells it from a zygote only once it runs: one seen
            # with a single thread is a zygote until a later sample sees it with two.
            if self.role.get(pid) == "zygote" and self.role.get(parent.get(pid, -1)) == "image" \
                    and _threads(pid) > 1:
                self.role[pid] = "worker"
            if pid not in self.role:
                cmd = _cmdline(pid)
                parent_role = self.role.get(parent.get(pid, -1), "")
                if pid == self.root:
                    self.role[pid] = "main"
                elif parent_role in ("zygote", "sandbox"):  # forked: the same command line
                    self.role[pid] = "sandbox"
                elif parent_role == "image":  # a worker or a zygote: both are the image's forks
                    self.role[pid] = "zygote" if _threads(pid) == 1 else "worker"
                elif "grader.sandbox.image" in cmd:
                    self.role[pid] = "image"
                elif "grader.sandbox.zygote" in cmd:  # a Dask worker's own
                    self.role[pid] = "zygote"
                elif "spawn_main" in cmd or "distributed" in cmd:
                    self.role[pid] = "worker"
                else:
                    self.role[pid] = "other"
            hwm = _status_kb(pid, "VmHWM:")
            if hwm:
                self.hwm[pid] = max(self.hwm.get(pid, 0), hwm)
            pss[pid] = _pss_kb(pid)
            total += pss[pid]
        self.peak_pss_kb = max(self.peak_pss_kb, total)
        # The largest worker's or zygote's own tree (a zygote's sandboxes counted to it).
        subtrees: dict[int, int] = {}
        for pid in seen:
            above = pid
            while above in parent and self.role.get(above) not in ("worker", "zygote"):
                above = parent[above]
            if self.role.get(above) in ("worker", "zygote"):
                subtrees[above] = subtrees.get(above, 0) + pss[pid]
        self.peak_pair_pss_kb = max([self.peak_pair_pss_kb, *subtrees.values()])

    def summary(self) -> dict[str, float]:
        by_role: dict[str, list[int]] = {}
        for pid, kb in self.hwm.items():
            by_role.setdefault(self.role.get(pid, "other"), []).append(kb)
        mb = lambda kb: round(kb / 1024, 1)  # noqa: E731
        long_lived = sum(sum(by_role.get(r, [])) for r in ("main", "image", "worker", "zygote", "other"))
        return {
            "peak_rss_mb_main_workers_zygotes": mb(long_lived),
            "peak_rss_mb_main": mb(sum(by_role.get("main", []))),
            "peak_rss_mb_workers_max": mb(max(by_role.get("worker", [0]))),
            "peak_rss_mb_zygote_max": mb(max(by_role.get("zygote", [0]))),
            "peak_rss_mb_sandbox_max": mb(max(by_role.get("sandbox", [0]))),
            "sandboxes_seen": len(by_role.get("sandbox", [])),
            "peak_pss_mb_tree": mb(self.peak_pss_kb),
            "peak_pss_mb_worker_pair": mb(self.peak_pair_pss_kb),
        }


# ---- the three measurements ---------------------------------------------------------------

def _cpu() -> float:
    """CPU seconds (user + system) of every waited-for descendant so far: a run's whole
    process tree, since its processes each wait for their children, and what outlives its
    main process (the pool's fork server) comes back to this one, a subreaper, which
    waits for it (``_reap_orphans``)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    import ctypes

    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap_orphans() -> None:
    """Wait for the descendants a run left to this subreaper (its fork server ends when
    the run's main process has)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _env(tree: Path = HERE.parent) -> dict[str, str]:
    """The environment of a run of the grader of checkout ``tree`` (this one by default)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(PYTHON).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    return env


def measure_tree(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float, TreeMemory, str]:
    """Run ``cmd``: its wall time, the CPU time of its whole process tree, its memory, its stdout."""
    started, cpu = time.perf_counter(), _cpu()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    memory = TreeMemory(proc.pid).start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - started
    memory.stop()
    _reap_orphans()
    cpu = _cpu() - cpu
    if proc.returncode != 0:
        raise RuntimeError(f"the run failed ({proc.returncode}):\n{stdout}\n{stderr[-4000:]}")
    return wall, cpu, memory, stdout


def measure_ours(class_dir: Path, out_dir: Path, seed: int, jobs: int | None,
                 scheduler: str | None = None, extra: tuple[str, ...] = (), tree: Path = HERE.parent) -> dict[str, Any]:
    """One run of checkout ``tree``'s grader (this one's by default), from that checkout."""
    cmd = [PYTHON, "-m", "grader", "grade", str(class_dir), "--out", str(out_dir), "--seed", str(seed),
           "--no-progress", *extra]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    if scheduler:
        cmd += ["--scheduler", scheduler]
    wall, cpu, memory, _ = measure_tree(cmd, _env(tree), cwd=tree)
    results = json.loads((out_dir / "results.json").read_text())
    per = {s["student"]: s["seconds"] for s in results["students"]}
    scores = {s["student"]: s["score"] for s in results["students"]}
    full = {s["student"]: {i["name"] for i in s["items"] if i["earned"] >= i["points"]} for s in results["students"]}
    return {"wall": wall, "cpu": cpu, "per": per, "scores": scores, "full": full, "memory": memory.summary(),
            "sandbox": results["run"]["sandbox"], "jobs": results["run"]["jobs"]}


def measure_floor(class_dir: Path, students: list[synthetic.Student], seed: int) -> dict[str, Any]:
    names = [s.name for s in students if s.kind != "hang"]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"class": str(class_dir), "students": names, "seed": seed}, handle)
    try:
        started, cpu = time.perf_counter(), _cpu()
        # The thread settings of a sandbox (the zygote's): one thread for BLAS, OpenMP and torch.
        env = {**_env(), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        proc = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--_floor", handle.name], env=env,
                              capture_output=True, text=True)
        wall, cpu = time.perf_counter() - started, _cpu() - cpu
    finally:
        os.unlink(handle.name)
    if proc.returncode != 0:
        raise RuntimeError(f"floor failed:\n{proc.stderr[-4000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"wall": wall, "cpu": cpu, **data}


def _floor_main(spec_path: str) -> None:
    """Runs in its own process: warm up (imports, one untimed submission), then time each."""
    import contextlib
    import io

    spec = json.loads(Path(spec_path).read_text())
    started = time.perf_counter()
    import matplotlib
    import torch

    torch.set_num_threads(1)
    matplotlib.use("Agg")
    try:  # the same cells as in a sandbox: figures are stubbed there, so here too
        from grader.sandbox import nullplot

        nullplot.install()
    except ImportError:
        pass
    from grader.assignment.bundle import load_bundle
    from grader.assignment.config import DEFAULT_ASSIGNMENT
    from grader.diagnosis.diagnose import Diagnoser
    from grader.runners.inprocess import InProcessRunner
    from grader.submissions.load import load_submission
    from grader.worker.score import grade_submission

    bundle = load_bundle(DEFAULT_ASSIGNMENT)
    assignment = bundle.assignment
    diagnose = Diagnoser(bundle).diagnose  # the work a run does by default, as ours does
    class_dir = Path(spec["class"])
    per, scores, full = {}, {}, {}
    warm = None

    def runner(source: Any) -> InProcessRunner:  # a check that hangs anyway stops, as in a sandbox
        return InProcessRunner.from_source(source, seconds=assignment.limits.item_seconds)

    for name in spec["students"]:
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            if warm is None:  # the same warm-up a worker gets: imports and first calls untimed
                sub = load_submission(class_dir / name, assignment.name, assignment.notebooks)
                grade_submission(sub, bundle, spec["seed"], runner, diagnose=diagnose)
                warm = time.perf_counter() - started
            # Timed as a worker times a student: reading the notebooks, then the checks.
            begun = time.perf_counter()
            sub = load_submission(class_dir / name, assignment.name, assignment.notebooks)
            result = grade_submission(sub, bundle, spec["seed"], runner, diagnose=diagnose)
        per[name] = round(time.perf_counter() - begun, 4)
        scores[name] = result.score
        full[name] = sorted(i.name for i in result.items if i.earned >= i.points)
    print(json.dumps({"per": per, "scores": scores, "full": full, "warm_up": warm}))


def measure_nbgrader(class_dir: Path, students: list[synthetic.Student], work: Path, timeout: int) -> dict[str, Any]:
    course = work / "course"
    source = course / "source" / synthetic.ASSIGNMENT_ID
    source.mkdir(parents=True)
    for nb in synthetic.NOTEBOOKS:
        shutil.copy2(synthetic.SOURCE_DIR / f"{nb}.ipynb", source / f"{nb}.ipynb")
    common = [f"--CourseDirectory.root={course}", f"--CourseDirectory.course_id={synthetic.ASSIGNMENT_ID}",
              f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}", f"--Exchange.root={work / 'exchange'}"]
    env = _env()
    gen = subprocess.run([PYTHON, "-m", "nbgrader", "generate_assignment", synthetic.ASSIGNMENT_ID, "--force",
                          *common], cwd=course, env=env, capture_output=True, text=True)
    if gen.returncode != 0:
        raise RuntimeError(f"nbgrader generate_assignment failed:\n{gen.stdout}\n{gen.stderr}")
    for student in students:
        src = class_dir / student.name / synthetic.ASSIGNMENT_ID
        shutil.copytree(src, course / "submitted" / student.name / synthetic.ASSIGNMENT_ID)
    cmd = [PYTHON, "-m", "nbgrader", "autograde", synthetic.ASSIGNMENT_ID, *common,
           f"--ExecutePreprocessor.timeout={timeout}", f"--Execute.timeout={timeout}",
           "--NbGrader.log_datefmt=%s", "--NbGrader.log_format=@%(asctime)s.%(msecs)03d %(levelname)s %(message)s"]
    started_epoch = time.time()
    started, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, cwd=course, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - started, _cpu() - cpu
    ended_epoch = time.time()
    log = proc.stdout + proc.stderr
    (work / "nbgrader-autograde.log").write_text(log)
    marks = []  # (epoch, student) where nbgrader starts a student
    for line in log.splitlines():
        match = re.match(r"@(\d+\.\d+) INFO Creating/updating student with ID '([^']+)'", line)
        if match:
            marks.append((float(match.group(1)), match.group(2)))
    per = {}
    for k, (t, name) in enumerate(marks):
        end = marks[k + 1][0] if k + 1 < len(marks) else ended_epoch
        per[name] = end - t
    startup = marks[0][0] - started_epoch if marks else wall
    full, scores = _nbgrader_grades(course, [s.name for s in students])
    return {"wall": wall, "cpu": cpu, "per": per, "startup": startup, "scores": scores, "full": full,
            "returncode": proc.returncode}


def _nbgrader_grades(course: Path, names: list[str]) -> tuple[dict[str, set[str]], dict[str, float]]:
    from nbgrader.api import Gradebook, MissingEntry

    full: dict[str, set[str]] = {}
    scores: dict[str, float] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", synthetic.ASSIGNMENT_ID) as gb:
        for name in names:
            try:
                sub = gb.find_submission(synthetic.ASSIGNMENT_ID, name)
            except MissingEntry:
                continue
            scores[name] = sub.score
            items = set()
            for nb in sub.notebooks:
                for grade in nb.grades:
                    if grade.max_score and grade.score >= grade.max_score and grade.name.startswith("test_"):
                        items.add(grade.name[len("test_"):])
            full[name] = items
    return full, scores


# ---- report ----------------------------------------------------------------------------------

def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20, help="students in the class")
    parser.add_argument("--nbgrader-n", type=int, help="students nbgrader is timed on (default: min(N, 20))")
    parser.add_argument("--skip-nbgrader", action="store_true")
    parser.add_argument("--skip-floor", action="store_true")
    parser.add_argument("--jobs", type=int, help="our worker processes (default: the grader's, the core count)")
    parser.add_argument("--jobs-sweep", help="grade the class once per worker count (e.g. 1,2,4,8,16) and "
                        "print a scaling table; no floor and no nbgrader")
    parser.add_argument("--scheduler", help="grade through this dask scheduler instead of the local pool")
    parser.add_argument("--diagnose-ab", type=int, metavar="ROUNDS",
                        help="grade the class ROUNDS times with the diagnosis and ROUNDS times with --no-diagnose, "
                        "alternated (ABBA), and print both; no floor and no nbgrader")
    parser.add_argument("--one", action="store_true",
                        help="time one submission end to end (grade, check.py, Gradescope) against the floor "
                        "of importing numpy and torch, on all cores and on one (benchmarks/bench_one.py)")
    parser.add_argument("--rounds", type=int, help="--one: alternated runs of each (the median; default 5); "
                        "--against: runs of each tree (default 2)")
    parser.add_argument("--against", metavar="REV",
                        help="grade the class with this tree and with commit REV (or the checkout in folder "
                        "REV), alternated, and print both and their ratios (bench_against.py); with --one, "
                        "also time REV's grader")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=int, default=30, help="nbgrader's cell timeout (s)")
    parser.add_argument("--buggy", type=float, default=0.25, help="share of students with a mutant")
    parser.add_argument("--hang", type=float, default=0.005, help="share whose softmax never returns (>= 1)")
    parser.add_argument("--broken", type=float, default=0.02, help="share with a truncated notebook (>= 1)")
    parser.add_argument("--keep", type=Path, help="build the class and the outputs here and keep them")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument("--_floor", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._floor:
        _floor_main(args._floor)
        return 0
    sweep = None
    if args.jobs_sweep:
        try:
            sweep = [int(j) for j in args.jobs_sweep.split(",")]
        except ValueError:
            parser.error(f"--jobs-sweep {args.jobs_sweep!r}: expected worker counts such as 1,2,4,8,16")
        if not sweep or min(sweep) < 1:
            parser.error(f"--jobs-sweep {args.jobs_sweep!r}: worker counts are 1 or more")
    _become_subreaper()

    work = Path(tempfile.mkdtemp(prefix="bench-grade-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        if args.one:
            from bench_against import checkout
            from bench_one import run_one

            with checkout(args.against, work) if args.against else contextlib.nullcontext() as there:
                return run_one(work, args.rounds or 5, args.json, there)
        if args.against:
            from bench_against import run_against

            return run_against(args, work)
        if args.diagnose_ab:
            return _diagnose_ab(args, work)
        return _sweep(args, work, sweep) if sweep else _run(args, work)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


def _build(args: argparse.Namespace, work: Path) -> tuple[list[synthetic.Student], Path, dict[str, Any]]:
    n = args.n
    students = synthetic.plan(n, args.seed, buggy=args.buggy, hang=args.hang, broken=args.broken)
    kinds = {k: sum(s.kind == k for s in students) for k in ("correct", "buggy", "hang", "broken")}
    class_dir = work / "class"
    started = time.perf_counter()
    synthetic.build_class(class_dir, students)
    print(f"class of {n} in {class_dir} ({time.perf_counter() - started:.1f} s to write): "
          + ", ".join(f"{v} {k}" for k, v in kinds.items()), flush=True)
    return students, class_dir, {"n": n, "kinds": kinds, "machine": _machine(), "cores": len(os.sched_getaffinity(0)),
                                 "load_average_before": os.getloadavg()}


def _machine() -> dict[str, Any]:
    """What the figures depend on: cores, CPU, versions, and the thread settings of each process."""
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), "")
    except OSError:
        pass
    versions = subprocess.run([PYTHON, "-c", "import sys, numpy, torch; print(sys.version.split()[0], "
                               "numpy.__version__, torch.__version__)"], capture_output=True, text=True).stdout.split()
    from grader.threads import PINNED

    return {"cores": len(os.sched_getaffinity(0)), "cpu": model, "python_numpy_torch": versions,
            "threads": {"worker": {**PINNED, "torch": 1}, "zygote and sandboxes": {**PINNED, "torch": 1},
                        "caller's OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "(unset)")}}


def _describe_machine(machine: dict[str, Any]) -> str:
    threads = ", ".join(f"{k}={v}" for k, v in machine["threads"]["worker"].items())
    return (f"{machine['cores']} cores ({machine['cpu'] or 'CPU unknown'}); Python, numpy, torch: "
            f"{' '.join(machine['python_numpy_torch']) or 'unknown'}; threads per worker and per sandbox: {threads}")


def _diagnose_ab(args: argparse.Namespace, work: Path) -> int:
    """The cost of naming the mistakes: the same class and seed graded with and without the
    diagnosis, alternated ABBA so that a drifting load falls on both alike."""
    _, class_dir, report = _build(args, work)
    print(_describe_machine(report["machine"]), flush=True)
    runs: dict[str, list[dict[str, Any]]] = {"with": [], "without": []}
    order = [("with", "without") if k % 2 == 0 else ("without", "with") for k in range(args.diagnose_ab)]
    for pair in order:
        for kind in pair:
            print(f"ours, {kind} the diagnosis ...", flush=True)
            out = work / f"ours-{kind}"
            shutil.rmtree(out, ignore_errors=True)
            extra = () if kind == "with" else ("--no-diagnose",)
            run = measure_ours(class_dir, out, args.seed, args.jobs, args.scheduler, extra)
            diagnosed = json.loads((out / "results.json").read_text())["students"]
            run["diagnosed"] = sum(1 for s in diagnosed if any(i.get("diagnoses") for i in s["items"]))
            runs[kind].append(run)
            print(f"  wall {run['wall']:.1f} s, CPU {run['cpu']:.1f} s, {run['diagnosed']} students diagnosed",
                  flush=True)
    print()
    for kind, measured in runs.items():
        walls = sorted(r["wall"] for r in measured)
        cpus = sorted(r["cpu"] for r in measured)
        print(f"{kind:>7s} the diagnosis: wall {', '.join(f'{w:.1f}' for w in walls)} s "
              f"(median {statistics.median(walls):.1f}); CPU {', '.join(f'{c:.1f}' for c in cpus)} s "
              f"(median {statistics.median(cpus):.1f})")
    wall = statistics.median(r["wall"] for r in runs["with"]) / statistics.median(r["wall"] for r in runs["without"])
    cpu = statistics.median(r["cpu"] for r in runs["with"]) / statistics.median(r["cpu"] for r in runs["without"])
    print(f"with / without: wall {wall - 1:+.1%}, CPU {cpu - 1:+.1%}")
    report["diagnose_ab"] = {kind: [{"wall": r["wall"], "cpu": r["cpu"], "diagnosed": r["diagnosed"]} for r in rs]
                             for kind, rs in runs.items()}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=list))
    return 0


def _sweep(args: argparse.Namespace, work: Path, counts: list[int]) -> int:
    """The class graded once per worker count, side by side: wall, speed-up and efficiency
    against the first count, CPU per student, and memory (PSS, shared pages counted once)."""
    _, class_dir, report = _build(args, work)
    print(_describe_machine(report["machine"]), flush=True)
    runs = []
    for jobs in counts:
        print(f"ours, --jobs {jobs} ...", flush=True)
        out = work / f"ours-{jobs}"
        shutil.rmtree(out, ignore_errors=True)
        runs.append(measure_ours(class_dir, out, args.seed, jobs, args.scheduler))
    report["load_average_after"] = os.getloadavg()
    base_jobs, base_wall = counts[0], runs[0]["wall"]
    print()
    print(f"N = {args.n}; load average before {report['load_average_before'][0]:.2f}, "
          f"after {report['load_average_after'][0]:.2f}")
    print(f"{'jobs':>5s} {'wall s':>8s} {'speed-up':>9s} {'efficiency':>11s} {'CPU s/sub':>10s} "
          f"{'PSS tree MB':>12s} {'PSS/pair MB':>12s}")
    table = []
    for jobs, run in zip(counts, runs, strict=True):
        speed = base_wall / run["wall"]
        row = {"jobs": jobs, "wall": run["wall"], "speed_up": speed, "efficiency": speed / (jobs / base_jobs),
               "cpu_per_student": run["cpu"] / args.n, "pss_tree_mb": run["memory"]["peak_pss_mb_tree"],
               "pss_pair_mb": run["memory"]["peak_pss_mb_worker_pair"]}
        table.append(row)
        print(f"{jobs:5d} {row['wall']:8.1f} {speed:8.2f}x {100 * row['efficiency']:10.0f}% "
              f"{row['cpu_per_student']:10.3f} {row['pss_tree_mb']:12.0f} {row['pss_pair_mb']:12.0f}")
    print(f"  (speed-up and efficiency against --jobs {base_jobs}; PSS/pair: the largest worker, or zygote "
          "with its sandbox, at its peak)")
    report["sweep"] = table
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=list))
    return 0


def _run(args: argparse.Namespace, work: Path) -> int:
    n = args.n
    students, class_dir, report = _build(args, work)
    print(_describe_machine(report["machine"]), flush=True)

    print("ours ...", flush=True)
    ours = measure_ours(class_dir, work / "ours", args.seed, args.jobs, args.scheduler)
    report["ours"] = ours
    floor = nbg = None
    if not args.skip_floor:
        print("floor ...", flush=True)
        floor = measure_floor(class_dir, students, args.seed)
        report["floor"] = floor
    if not args.skip_nbgrader:
        k = min(n, args.nbgrader_n or 20)
        chosen = synthetic.subset(students, k)
        print(f"nbgrader autograde on {k} students ...", flush=True)
        nbg = measure_nbgrader(class_dir, chosen, work / "nbgrader", args.timeout)
        nbg["k"] = k
        nbg["students"] = [s.name for s in chosen]
        report["nbgrader"] = nbg
    report["load_average_after"] = os.getloadavg()

    # (label, students graded, wall s, wall s scaled to N, median s per student, CPU s per student)
    rows = []
    ours_med = _median(list(ours["per"].values()))
    rows.append((f"ours (sandboxed, {ours['jobs']} workers)", n, ours["wall"], ours["wall"], ours_med,
                 ours["cpu"] / n))
    if nbg is not None:
        rows.append((f"nbgrader autograde (timed on {nbg['k']})", nbg["k"], nbg["wall"], nbg["wall"] * n / nbg["k"],
                     _median(list(nbg["per"].values())), nbg["cpu"] / nbg["k"]))
    if floor is not None:
        graded = len(floor["per"])
        rows.append((f"in-process floor ({graded}; hangs skipped)", graded, floor["wall"], floor["wall"],
                     _median(list(floor["per"].values())), floor["cpu"] / graded))
    print()
    print(f"N = {n} on {report['cores']} cores; load average before {report['load_average_before'][0]:.2f}, "
          f"after {report['load_average_after'][0]:.2f}")
    print(f"{'':40s} {'graded':>6s} {'wall s':>8s} {'wall s, N':>10s} {'median s/sub':>13s} {'CPU s/sub':>10s}")
    for label, graded, wall, wall_n, med, cpu in rows:
        print(f"{label:40s} {graded:6d} {wall:8.1f} {wall_n:10.1f} {med:13.3f} {cpu:10.3f}")
    print("  (median s/sub: each tool's own clock per student. CPU s/sub: CPU time of the tool's whole process")
    print("   tree over the students it graded, start-up and the hanging students' spinning included.)")
    print()
    ratios = {}
    if nbg is not None:
        same = [ours["per"][s] for s in nbg["per"] if s in ours["per"]]
        ratios["nbgrader/ours, median s per submission (same students)"] = (
            _median(list(nbg["per"].values())) / _median(same))
        ratios["nbgrader/ours, wall for N"] = (nbg["wall"] * n / nbg["k"]) / ours["wall"]
    hung = [s.name for s in students if s.kind == "hang"]
    if floor is not None:
        same = [ours["per"][s] for s in floor["per"]]
        ratios["ours/floor, median s per submission (same students)"] = (
            _median(same) / _median(list(floor["per"].values())))
        # A hanging student's sandbox spins on one core for the seconds it is held: taken out,
        # our CPU covers the students the floor graded.
        spun = sum(ours["per"][h] for h in hung if h in ours["per"])
        ratios["ours/floor, CPU s per submission (same students)"] = (
            (ours["cpu"] - spun) / max(1, n - len(hung))) / (floor["cpu"] / max(1, len(floor["per"])))
    for label, value in ratios.items():
        print(f"  {label:58s} {value:7.2f}x")
    busy = sum(ours["per"].values())
    rest = sum(v for k, v in ours["per"].items() if k not in hung)
    print(f"  ours: sum of per-student seconds {busy:.1f} s over {ours['jobs']} workers; without the hanging "
          f"students {rest:.1f} s, i.e. {rest / max(1, n - len(hung)):.3f} s per student")
    report["ours_worker_seconds"] = {"all": busy, "without_hangs": rest}
    report["ratios"] = ratios
    mem = ours["memory"]
    print(f"  peak RSS of our run: main + workers + zygotes {mem['peak_rss_mb_main_workers_zygotes']:.0f} MB "
          f"(main {mem['peak_rss_mb_main']:.0f}, largest worker {mem['peak_rss_mb_workers_max']:.0f}, "
          f"largest zygote {mem['peak_rss_mb_zygote_max']:.0f}); "
          f"largest sandbox {mem['peak_rss_mb_sandbox_max']:.0f} MB; "
          f"peak PSS of the whole tree {mem['peak_pss_mb_tree']:.0f} MB, "
          f"of the largest worker, or zygote with its sandbox, {mem['peak_pss_mb_worker_pair']:.0f} MB")
    if hung:
        print(f"  hanging students ({', '.join(hung)}): ours " + ", ".join(f"{ours['per'][h]:.1f} s" for h in hung)
              + (", nbgrader " + ", ".join(f"{nbg['per'][h]:.1f} s" for h in hung if h in nbg["per"]) if nbg else ""))
    if floor is not None:
        differ = [s for s in floor["scores"] if floor["scores"][s] != ours["scores"][s]]
        print(f"  scores ours vs floor: {len(floor['scores']) - len(differ)} of {len(floor['scores'])} identical"
              + (f"; differ: {differ[:10]}" if differ else ""))
    if nbg is not None:
        agree = sum(set(nbg["full"].get(s, ())) == set(ours["full"][s]) for s in nbg["per"])
        print(f"  items with full marks, ours vs nbgrader: the same for {agree} of {len(nbg['per'])} students")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=list))
    return 0


if __name__ == "__main__":
    sys.exit(main())
