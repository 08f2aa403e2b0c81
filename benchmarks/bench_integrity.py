"""What the integrity report costs a class run, and what it finds, side by side in one run.

    python benchmarks/bench_integrity.py --students 1000 [--jobs N] [--seed S]

Builds a class with planted copies (``benchmarks/integrity_class.py``), grades it with the
default outputs and then with ``integrity`` added (same seed), and prints both walls, their
ratio (the target: at most 1.15), whether ``grades.csv`` is the same byte for byte, and the
report's recall on the planted pairs and its flags among independent pairs.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.integrity_class import build  # noqa: E402


def grade(class_dir: Path, out: Path, formats: str, seed: int, jobs: int | None) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "grade", str(class_dir), "--out", str(out), "--seed", str(seed),
                    "--no-progress", "--format", formats, *(["--jobs", str(jobs)] if jobs else [])],
                   check=True, capture_output=True, cwd=Path(__file__).resolve().parents[1])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-integrity-") as tmp:
        root = Path(tmp)
        planted = build(root / "class", args.students, args.seed)
        plain = grade(root / "class", root / "plain", "csv,json,markdown", args.seed, args.jobs)
        report = grade(root / "class", root / "report", "csv,json,markdown,integrity", args.seed, args.jobs)
        same = (root / "plain" / "grades.csv").read_bytes() == (root / "report" / "grades.csv").read_bytes()
        with open(root / "report" / "integrity.csv", newline="", encoding="utf-8") as handle:
            flagged = {frozenset((r["student_a"], r["student_b"])) for r in csv.DictReader(handle)}
    copies = {frozenset((a, b)) for a, b, _ in planted}
    independent = args.students * (args.students - 1) // 2 - len(copies)
    found = len(flagged & copies)
    print(f"{args.students} students, {len(copies)} planted pairs")
    print(f"grade without integrity: {plain:6.1f} s")
    print(f"grade with integrity:    {report:6.1f} s  (+{report - plain:.1f} s, {report / plain:.2f}x)")
    print(f"grades.csv byte-identical: {'yes' if same else 'NO'}")
    print(f"planted pairs flagged:   {found} / {len(copies)} ({found / len(copies):.1%})")
    by_kind = {kind: sum(frozenset((a, b)) in flagged for a, b, k in planted if k == kind)
               for kind in ("whole", "partial", "bug")}
    totals = {kind: sum(k == kind for _, _, k in planted) for kind in by_kind}
    print("  by kind: " + ", ".join(f"{kind} {by_kind[kind]}/{totals[kind]}" for kind in by_kind))
    false = len(flagged - copies)
    print(f"independent pairs flagged: {false} / {independent} ({false / independent:.4%})")


if __name__ == "__main__":
    main()
