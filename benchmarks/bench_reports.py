"""Benchmark: what the HTML reports (``html``, ``report``) add to a class run.

    python benchmarks/bench_reports.py --n 30 --rounds 5

One synthetic class (``synthetic.py``, the mix of ``bench_grade.py``) is graded ``--rounds``
times with the default outputs and ``--rounds`` times with the HTML reporters added, the two
alternating (ABBA, so a drift of the machine's load falls on both alike), each run a fresh
``python -m grader grade`` with the same seed. Reported: the median wall and CPU time of
each (CPU of the whole process tree: main, workers, zygotes, sandboxes) and the difference
as a share of the default run; then, from the last HTML run's ``results.json``, the time the
trusted process spends writing the pages alone (the rest of the difference is the public
examples run in the sandboxes).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_grade  # noqa: E402
import synthetic  # noqa: E402

DEFAULTS = ("csv", "json", "markdown")
HTML = (*DEFAULTS, "html", "report")


def reporters_only(results_path: Path, out: Path) -> float:
    """Seconds the two HTML reporters take over the results of a run (no grading)."""
    from grader.assignment.bundle import load_bundle
    from grader.records.results import RunInfo, SubmissionResult
    from grader.records.rung import Rung
    from grader.reporters import feed, open_reporter

    data = json.loads(results_path.read_text(encoding="utf-8"))
    bundle = load_bundle(data["run"]["assignment"])
    results = [SubmissionResult.from_json(s) for s in data["students"]]
    run = RunInfo(data["run"]["seed"], data["run"]["assignment"], data["run"]["class"], "", 1, "local",
                  Rung.from_json(data["run"]["sandbox"]), "")
    started = time.perf_counter()
    reporters = [open_reporter(name, out) for name in ("html", "report")]
    feed(reporters, bundle, run, results)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=30, help="students in the class")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each kind")
    parser.add_argument("--jobs", type=int, help="worker processes (default: the grader's)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-reports-"))
    try:
        class_dir = work / "class"
        synthetic.build_class(class_dir, synthetic.plan(args.n, args.seed))
        runs: dict[str, list[dict[str, float]]] = {"default": [], "html": []}
        pairs = [("default", "html") if k % 2 == 0 else ("html", "default") for k in range(args.rounds)]
        order = [kind for pair in pairs for kind in pair]
        for number, kind in enumerate(order):
            out = work / f"out-{number}"
            extra = tuple(f"--report={name}" for name in (HTML if kind == "html" else DEFAULTS))
            measured = bench_grade.measure_ours(class_dir, out, args.seed, args.jobs, extra=extra)
            runs[kind].append({"wall": measured["wall"], "cpu": measured["cpu"]})
            print(f"{kind:8} wall {measured['wall']:6.1f} s  cpu {measured['cpu']:6.1f} s", flush=True)
        last_html = max(number for number, kind in enumerate(order) if kind == "html")
        pages = reporters_only(work / f"out-{last_html}" / "results.json", work / "pages")
        summary = {"n": args.n, "rounds": args.rounds, "runs": runs, "pages_only_s": pages}
        for what in ("wall", "cpu"):
            plain = statistics.median(r[what] for r in runs["default"])
            html = statistics.median(r[what] for r in runs["html"])
            summary[f"{what}_default_s"], summary[f"{what}_html_s"] = plain, html
            summary[f"{what}_cost"] = (html - plain) / plain
            print(f"median {what}: default {plain:.1f} s, with the HTML reports {html:.1f} s: "
                  f"{100 * (html - plain) / plain:+.1f}%")
        wall = summary["wall_default_s"]
        print(f"writing the pages alone (the trusted process): {pages:.2f} s for {args.n} students "
              f"({100 * pages / wall:.1f}% of the default run's median wall time)")
        if args.json:
            args.json.write_text(json.dumps(summary, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
