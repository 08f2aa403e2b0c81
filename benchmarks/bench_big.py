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
* **first result**: seconds from the command to the first graded student, in the start-up run
  below (the class's own first student may be one whose loop runs out its item's time);
* **PSS**: the peak proportional set size of the whole tree (shared pages counted once),
  and what each worker past the first count's adds;
* **start-up**: a second run per count on as many students as the largest count, each of whom
  handed in the starter notebooks untouched (their items fail at once): the tree's CPU seconds,
  nearly all start-up, the same students' work in every row, and the wall time.

Each run is ``grader.grading.classrun.grade_class`` in a process of its own, as the CLI calls it.
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

_STUB = "# YOUR CODE HERE\nraise NotImplementedError()\n"


def blank_class(class_dir: Path, count: int) -> None:
    """``count`` students who handed in the starter notebooks untouched (each solution region
    replaced by nbgrader's stub, as the release has it)."""
    for notebook in synthetic.NOTEBOOKS:
        nb = synthetic.load_source(notebook)
        for cell in nb["cells"]:
            if cell.get("cell_type") == "code":
                text = synthetic._text(cell)
                text = synthetic._HIDDEN_REGION.sub("", text)
                text = _stubbed(text)
                synthetic._set_text(cell, text)
                cell["outputs"], cell["execution_count"] = [], None
        text = json.dumps(nb, indent=1) + "\n"
        for index in range(count):
            folder = class_dir / f"blank{index:03d}" / synthetic.ASSIGNMENT_ID
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{notebook}.ipynb").write_text(text, encoding="utf-8")


def _stubbed(text: str) -> str:
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        marker = line.strip()
        if marker == "### BEGIN SOLUTION":
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + stub for stub in _STUB.splitlines(keepends=True)]
        elif marker == "### END SOLUTION":
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def run(class_dir: Path, out: Path, jobs: int, seed: int, tree: Path | None = None) -> dict[str, Any]:
    """One run in a process of its own: wall, CPU of the tree, first result, peak PSS.
    ``tree``: another checkout's grader (its ``grader`` package first on the path)."""
    shutil.rmtree(out, ignore_errors=True)
    env = _env()
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env["PYTHONPATH"]])
    started_epoch = time.time()
    wall, cpu, memory, stdout = measure_tree([PYTHON, str(Path(__file__).resolve()), "--_grade", str(class_dir),
                                              str(out), str(jobs), str(seed)], env, tree or HERE.parent)
    report = json.loads(stdout.strip().splitlines()[-1])
    return {"wall": wall, "cpu": cpu, "students": report["students"],
            "first": None if report["first"] is None else report["first"] - started_epoch,
            "pss_mb": memory.peak_pss_kb / 1024, "sandbox": report["sandbox"], "main_cpu": report["main_cpu"]}


def _grade_main(class_dir: str, out: str, jobs: str, seed: str) -> None:
    sys.path.insert(0, os.getcwd())  # the tree benchmarked (``--against``), before this one
    from grader.grading.classrun import grade_class

    first: list[float] = []

    def progress(done: int, total: int) -> None:
        if done >= 1 and not first:
            first.append(time.time())

    outcome = grade_class(Path(class_dir), Path(out), seed=int(seed), jobs=int(jobs), progress=progress,
                          log=lambda line: None)
    sandbox = json.loads((Path(out) / "results.json").read_text(encoding="utf-8"))["run"]["sandbox"]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"first": first[0] if first else None, "students": outcome.summary.students,
                      "sandbox": sandbox, "main_cpu": usage.ru_utime + usage.ru_stime}))


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
        blank_class(work / "blank", max(counts))
        print(f"{machine['cores']} cores ({machine['cpu'] or 'CPU unknown'}); Python, numpy, torch: "
              f"{' '.join(machine['python_numpy_torch'])}; N = {args.n}; load average {os.getloadavg()[0]:.2f}",
              flush=True)
        trees: dict[str, Path | None] = {"this tree": None}
        if args.against:
            trees[str(args.against)] = args.against.resolve()
        tables: dict[str, list[dict[str, Any]]] = {label: [] for label in trees}
        for jobs in counts:
            class_dir = work / "class-one" if jobs == 1 and args.n_one and args.n_one < args.n else work / "class"
            start_dir = work / "blank"
            for label, tree in trees.items():  # the trees alternate, so a drifting load falls on both
                print(f"{label}: --jobs {jobs} ...", flush=True)
                graded = run(class_dir, work / f"out-{jobs}", jobs, args.seed, tree)
                startup = run(start_dir, work / f"out-blank-{jobs}", jobs, args.seed, tree)
                tables[label].append({"jobs": jobs, **graded, "startup_cpu": startup["cpu"],
                                      "startup_wall": startup["wall"], "startup_first": startup["first"]})
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
    header = (f"{'jobs':>4} {'students':>8} {'wall s':>7} {'stud/s':>7} {'efficiency':>10} {'CPU s/stud':>10} "
              f"{'main ms/stud':>12} {'first s':>7} {'PSS MB':>7} {'+MB/worker':>10} {'start CPU s':>11} "
              f"{'start wall s':>12}")
    print(header)
    for row in rows:
        rate = row["students"] / row["wall"]
        row["efficiency"] = rate / base_rate * base["jobs"] / row["jobs"]
        row["cpu_per_student"] = row["cpu"] / row["students"]
        extra = row["jobs"] - base["jobs"]
        row["pss_per_added_worker_mb"] = (row["pss_mb"] - base["pss_mb"]) / extra if extra else None
        added = "" if row["pss_per_added_worker_mb"] is None else f"{row['pss_per_added_worker_mb']:.0f}"
        print(f"{row['jobs']:4d} {row['students']:8d} {row['wall']:7.1f} {rate:7.1f} {100 * row['efficiency']:9.0f}% "
              f"{row['cpu_per_student']:10.3f} {1000 * row['main_cpu'] / row['students']:12.1f} "
              f"{row['startup_first'] or float('nan'):7.2f} {row['pss_mb']:7.0f} "
              f"{added:>10} {row['startup_cpu']:11.2f} {row['startup_wall']:12.2f}")
    blanks = max(row["jobs"] for row in rows)
    print(f"  (sandbox: {base['sandbox']}; efficiency: students per second per worker against --jobs "
          f"{base['jobs']}; start-up: a run on {blanks} untouched starter notebooks)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--_grade":
        _grade_main(*sys.argv[2:6])
        sys.exit(0)
    sys.exit(main())
