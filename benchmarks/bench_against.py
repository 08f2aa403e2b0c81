"""``bench_grade.py --against REV``: the same class graded by this tree and by commit REV, side
by side in one run, so that a change's cost is measured on the same machine in one sitting.

    python benchmarks/bench_grade.py --n 1000 --skip-nbgrader --skip-floor --against 9c23c23
    python benchmarks/bench_grade.py --n 100 --against main --rounds 3

REV (a commit, a branch, or the folder of another checkout) is checked out into a worktree of
its own, removed at the end. The class is built once, by this tree's generator, and each tree
grades it with its own bundle, alternated ABAB (this tree first, then REV), so that a load
that drifts falls on both alike. Printed: each run's wall and the CPU time of its whole
process tree (the steadier measure on a shared machine), each tree's best and median, the
ratios this tree / REV, and whether the two trees' ``grades.csv`` are the same byte for byte
(they differ wherever the two bundles do).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_grade import HERE, _build, _describe_machine, measure_ours


@contextlib.contextmanager
def checkout(rev: str, work: Path) -> Iterator[Path]:
    """The tree of ``rev``: a folder that holds a checkout is itself; a commit gets a git
    worktree under ``work``, removed afterwards."""
    if Path(rev).is_dir():
        yield Path(rev).resolve()
        return
    root = HERE.parent
    tree = Path(tempfile.mkdtemp(prefix="against-", dir=work))
    made = subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev], cwd=root,
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise SystemExit(f"--against {rev}: no such commit or folder here "
                         f"({(made.stderr.strip().splitlines() or ['git worktree add failed'])[-1]})")
    try:
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=root, capture_output=True)
        subprocess.run(["git", "worktree", "prune"], cwd=root, capture_output=True)
        shutil.rmtree(tree, ignore_errors=True)


def _summary(runs: list[dict[str, Any]], key: str) -> str:
    values = [run[key] for run in runs]
    return (f"{', '.join(f'{v:.1f}' for v in values)} s (best {min(values):.1f}, "
            f"median {statistics.median(values):.1f})")


def run_against(args: argparse.Namespace, work: Path) -> int:
    """Grade one class ``args.rounds`` times with each tree, alternated, and print both."""
    rounds = args.rounds or 2
    with checkout(str(args.against), work) as there:
        _, class_dir, report = _build(args, work)
        print(_describe_machine(report["machine"]), flush=True)
        trees = {"this tree": HERE.parent, str(args.against): there}
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for round_ in range(rounds):
            for name, tree in trees.items():
                out = work / f"ours-{len(runs[name])}-{'here' if tree == HERE.parent else 'there'}"
                shutil.rmtree(out, ignore_errors=True)
                run = measure_ours(class_dir, out, args.seed, args.jobs, args.scheduler, tree=tree)
                run["grades_csv"] = (out / "grades.csv").read_bytes()
                runs[name].append(run)
                print(f"  round {round_ + 1}, {name}: wall {run['wall']:.1f} s, CPU {run['cpu']:.1f} s "
                      f"({run['cpu'] / args.n:.3f} s per student), sandbox {run['sandbox']['mode']}", flush=True)
    here, rev = runs.values()
    print()
    print(f"N = {args.n}, {rounds} round(s) of each tree, alternated; load average before "
          f"{report['load_average_before'][0]:.2f}, after {os.getloadavg()[0]:.2f}")
    for name, measured in runs.items():
        print(f"{name:>12s}: wall {_summary(measured, 'wall')}; CPU {_summary(measured, 'cpu')}")
    best = {key: min(r[key] for r in here) / min(r[key] for r in rev) for key in ("wall", "cpu")}
    median = {key: statistics.median(r[key] for r in here) / statistics.median(r[key] for r in rev)
              for key in ("wall", "cpu")}
    print(f"this tree / {args.against}: wall {best['wall']:.3f}x best, {median['wall']:.3f}x median; "
          f"CPU {best['cpu']:.3f}x best, {median['cpu']:.3f}x median")
    same = here[0]["grades_csv"] == rev[0]["grades_csv"]
    print(f"grades.csv the same byte for byte in both trees: {'yes' if same else 'no'}")
    report["against"] = {"rev": str(args.against), "ratio_best": best, "ratio_median": median,
                         "grades_csv_identical": same,
                         "runs": {name: [{"wall": r["wall"], "cpu": r["cpu"]} for r in rs]
                                  for name, rs in runs.items()}}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=list))
    return 0
