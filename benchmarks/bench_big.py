"""Benchmark for big machines: one table of what each worker count costs and gives.

    python benchmarks/bench_big.py --n 1000 --jobs 1,2,4,8,16
    python benchmarks/bench_big.py --n 1000 --jobs 1,16 --n-one 200   # the one-worker row on 200

For each worker count, side by side in one run on one synthetic class (``synthetic.py``):

* **wall**, **students/s** and **parallel efficiency**: the throughput against the first
  count's, per worker (a first count other than 1 is the base); ``--n-one`` grades the
  one-worker row on the first students only (the class's mix: the throughput compares);
* **CPU s/student**: user + system time of the run's whole process tree over its students,
  and **main ms/student** the main process's share (reading results, the reporters): the one
  process every result goes through;
* **PSS**: the peak proportional set size of the whole tree (shared pages counted once),
  and what each worker past the first count's adds;
* **start-up**: a second process per count that starts that many workers, waits for every
  one to be ready (bundle loaded, zygote's hello) and grades one correct student meanwhile:
  the tree's CPU seconds (the start-up, and the same one student in every row), the wall time,
  and the **first result**: seconds from the command to that student's result;
* **where the efficiency goes**: the class run's own first result (*1st*), the seconds after
  its last result (*tail*: the outputs written, the processes ended), the seconds from the
  result that left fewer students than workers to the last (*drain*: workers running out of
  students one by one, where a slow student at the end shows), the workers' share of
  jobs x wall spent on students (*busy*, from each student's ``seconds``), and the efficiency
  over the middle 80% of the results alone (*steady*: the start and the tail left out).

Each run is ``grader.run.classrun.grade_class`` in a process of its own, as the CLI calls it.
Runs without this project's venv: see benchmarks/README.md, "Big machines".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import synthetic  # noqa: E402
from bench_grade import PYTHON, _become_subreaper, _env, _machine, measure_tree  # noqa: E402


def run(mode: str, arguments: list[str], tree: Path | None = None) -> dict[str, Any]:
    """``--_grade`` (a class run) or ``--_start`` (the workers' start) in a process of its own:
    wall, CPU of its tree, peak PSS, and what the process reports. ``tree``: another
    checkout's grader (its ``grader`` package first on the path)."""
    env = _env()
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env["PYTHONPATH"]])
    started_epoch = time.time()
    wall, cpu, memory, stdout = measure_tree([PYTHON, str(Path(__file__).resolve()), mode, *arguments], env,
                                             tree or HERE.parent)
    report = json.loads(stdout.strip().splitlines()[-1])
    for key in ("first", "arrived_first", "arrived_last"):  # epochs, as seconds from the command
        if report.get(key) is not None:
            report[key] -= started_epoch
    return {"wall": wall, "cpu": cpu, "pss_mb": memory.peak_pss_kb / 1024, **report}


def _grade_main(class_dir: str, out: str, jobs: str, seed: str) -> None:
    sys.path.insert(0, os.getcwd())  # the tree benchmarked (``--against``), before this one
    from grader.run.classrun import grade_class

    arrived: list[float] = []

    def progress(done: int, total: int) -> None:
        if done:
            arrived.append(time.time())

    outcome = grade_class(Path(class_dir), Path(out), seed=int(seed), jobs=int(jobs), progress=progress,
                          log=lambda line: None)
    results = json.loads((Path(out) / "results.json").read_text(encoding="utf-8"))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    tenth = len(arrived) // 10
    print(json.dumps({"students": outcome.summary.students, "sandbox": results["run"]["sandbox"],
                      "main_cpu": usage.ru_utime + usage.ru_stime,
                      "graded_s": sum(s["seconds"] for s in results["students"]),
                      "arrived_first": arrived[0] if arrived else None,
                      "arrived_last": arrived[-1] if arrived else None,
                      # from the result that left fewer students than workers to the last one:
                      # the end, when workers run out of students one by one
                      "drain": arrived[-1] - arrived[-int(jobs)] if len(arrived) >= int(jobs) else None,
                      # the middle 80% of the results: the rate with the start and the tail left out
                      "middle_rate": (len(arrived) - 2 * tenth - 1) / (arrived[-tenth - 1] - arrived[tenth])
                      if tenth and arrived[-tenth - 1] > arrived[tenth] else None}))


def _start_main(folder: str, jobs: str, seed: str, students: str) -> None:
    """Start ``jobs`` workers as for a class of ``students``, grade the one student in
    ``folder`` with the first that is ready, and return once every worker is ready."""
    sys.path.insert(0, os.getcwd())
    from grader.assignment.bundle import load_bundle, read_outline
    from grader.assignment.config import DEFAULT_ASSIGNMENT
    from grader.run.classrun import grade, prepare_run, start_workers

    outline = read_outline(DEFAULT_ASSIGNMENT)
    first = None
    with start_workers(outline, int(students), jobs=int(jobs), log=lambda line: None) as workers:
        bundle = load_bundle(outline)
        with prepare_run(bundle, Path(folder).parent, 1, seed=int(seed), workers=workers,
                         log=lambda line: None) as ready:
            for _ in grade(ready, [Path(folder)], log=lambda line: None):
                first = time.time()
    print(json.dumps({"first": first}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="students in the class")
    parser.add_argument("--jobs", default="1,2,4,8,16", help="worker counts, e.g. 1,2,4,8,16")
    parser.add_argument("--n-one", type=int, help="grade the one-worker row on the first N-ONE students only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write every measurement here")
    parser.add_argument("--against", type=Path, help="another checkout's grader, measured in the same rounds")
    args = parser.parse_args()
    try:
        counts = [int(j) for j in args.jobs.split(",")]
    except ValueError:
        parser.error(f"--jobs {args.jobs!r}: expected worker counts such as 1,2,4,8,16")
    if any(j < 1 for j in counts):
        parser.error("--jobs: worker counts are 1 or more")
    _become_subreaper()
    machine = _machine()
    with tempfile.TemporaryDirectory(prefix="bench-big-") as tmp:
        work = Path(tmp)
        students = synthetic.plan(args.n, args.seed)
        synthetic.build_class(work / "class", students)
        if args.n_one and args.n_one < args.n:
            synthetic.build_class(work / "class-one", students[: args.n_one])
        correct = next(s.name for s in students if s.kind == "correct")
        print(f"{machine['cores']} cores ({machine['cpu'] or 'CPU unknown'}); Python, numpy, torch: "
              f"{' '.join(machine['python_numpy_torch'])}; N = {args.n}; load average {os.getloadavg()[0]:.2f}",
              flush=True)
        trees: dict[str, Path | None] = {"this tree": None}
        if args.against:
            trees[str(args.against)] = args.against.resolve()
        tables: dict[str, list[dict[str, Any]]] = {label: [] for label in trees}
        for jobs in counts:
            class_dir = work / "class-one" if jobs == 1 and args.n_one and args.n_one < args.n else work / "class"
            for label, tree in trees.items():  # the trees alternate, so a drifting load falls on both
                print(f"{label}: --jobs {jobs} ...", flush=True)
                # The start first: right after a class run, the machine is still busy with its end.
                startup = run("--_start", [str(work / "class" / correct), str(jobs), str(args.seed), str(args.n)],
                              tree)
                shutil.rmtree(work / "out", ignore_errors=True)
                graded = run("--_grade", [str(class_dir), str(work / "out"), str(jobs), str(args.seed)], tree)
                tables[label].append({"jobs": jobs, **graded, "startup_cpu": startup["cpu"],
                                      "startup_wall": startup["wall"], "first": startup["first"]})
    print()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for label, rows in tables.items():
        print()
        print(f"{label}:")
        _table(rows)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "n": args.n, "tables": tables}, indent=1))
    return 0


def _table(rows: list[dict[str, Any]]) -> None:
    base = rows[0]
    base_rate = base["students"] / base["wall"]
    print(f"{'jobs':>4} {'students':>8} {'wall s':>7} {'stud/s':>7} {'efficiency':>10} {'steady eff':>10} "
          f"{'busy':>5} {'1st s':>6} {'drain s':>7} {'tail s':>6} {'CPU s/stud':>10} {'main ms/stud':>12} "
          f"{'first s':>7} {'PSS MB':>7} {'+MB/worker':>10} {'start CPU s':>11} {'start wall s':>12}")
    for row in rows:
        rate = row["students"] / row["wall"]
        row["efficiency"] = rate / base_rate * base["jobs"] / row["jobs"]
        row["steady_efficiency"] = (row["middle_rate"] / base["middle_rate"] * base["jobs"] / row["jobs"]
                                    if row.get("middle_rate") and base.get("middle_rate") else None)
        row["busy"] = row["graded_s"] / (row["jobs"] * row["wall"])
        row["cpu_per_student"] = row["cpu"] / row["students"]
        extra = row["jobs"] - base["jobs"]
        row["pss_per_added_worker_mb"] = (row["pss_mb"] - base["pss_mb"]) / extra if extra else None
        added = "" if row["pss_per_added_worker_mb"] is None else f"{row['pss_per_added_worker_mb']:.0f}"
        steady = "" if row["steady_efficiency"] is None else f"{100 * row['steady_efficiency']:.0f}%"
        print(f"{row['jobs']:4d} {row['students']:8d} {row['wall']:7.1f} {rate:7.1f} {100 * row['efficiency']:9.0f}% "
              f"{steady:>10} {100 * row['busy']:4.0f}% {row['arrived_first']:6.2f} "
              f"{float('nan') if row['drain'] is None else row['drain']:7.2f} "
              f"{row['wall'] - row['arrived_last']:6.2f} {row['cpu_per_student']:10.3f} "
              f"{1000 * row['main_cpu'] / row['students']:12.1f} {row['first'] or float('nan'):7.2f} "
              f"{row['pss_mb']:7.0f} {added:>10} {row['startup_cpu']:11.2f} {row['startup_wall']:12.2f}")
    print(f"  (sandbox: {base['sandbox']}; efficiency: students per second per worker against --jobs "
          f"{base['jobs']}; steady: the same over the middle 80% of the results; busy: the workers' "
          "seconds on students over jobs x wall; 1st s, tail s: the class run's first result, and its "
          "end after the last; drain s: from the result that left fewer students than workers to the last; "
          "start-up: every worker ready, one student graded meanwhile)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--_grade":
        _grade_main(*sys.argv[2:6])
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--_start":
        _start_main(*sys.argv[2:6])
        sys.exit(0)
    sys.exit(main())
