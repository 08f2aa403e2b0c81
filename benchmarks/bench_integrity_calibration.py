"""Who the integrity report lists, on classes no one tuned it on: honest pairs on the list, and
the planted copies of every kind found, at every class size (the analysis alone, no grading).

    python benchmarks/bench_integrity_calibration.py [--sizes 20,40,150,1000] [--seeds 1,2] [--against REV]

For each size and seed: an honest class whose students converge strongly, and the same with the
copies of ``integrity_converging.KINDS`` planted (``benchmarks/integrity_converging.py``), plus
last round's class (``integrity_class.py``: public ports, classic bugs, styles). Prints the
honest pairs listed, the planted pairs found by kind, and the analysis's CPU seconds (reading
and fingerprinting the files; scoring the class). With ``--against REV`` (a commit of this
repository), each line is followed by the same class measured by REV's analysis (its ``grader``
and benchmarks, run from a copy of that commit): the figures before and after, side by side.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import integrity_class, integrity_converging  # noqa: E402
from benchmarks.integrity_converging import KINDS  # noqa: E402
from grader.assignment.bundle import load_bundle  # noqa: E402
from grader.assignment.config import DEFAULT_ASSIGNMENT  # noqa: E402
from grader.integrity.evidence import Work, pairs  # noqa: E402
from grader.integrity.fingerprints import definitions  # noqa: E402
from grader.integrity.listing import flagged  # noqa: E402
from grader.integrity.origins import solution_named  # noqa: E402
from grader.integrity.public import public_code  # noqa: E402
from grader.submissions.load import read_cells  # noqa: E402


def analyse(class_dir: Path) -> tuple[list, dict[str, int], float, float]:
    """The listed pairs, the students named for the instructor's solution (items), and the CPU
    seconds to read the class and to score it (CPU: the machine may be shared)."""
    bundle = load_bundle(DEFAULT_ASSIGNMENT)
    public = public_code(bundle)
    started = time.process_time()
    works = []
    for folder in sorted(class_dir.iterdir()):
        code = {}
        for notebook in bundle.assignment.notebooks:
            path = folder / f"{notebook}.py"
            names = [item.name for item in bundle.assignment.items_of(notebook)]
            code.update(definitions(read_cells(path), names))
        works.append(Work(folder.name, code))
    read = time.process_time() - started
    started = time.process_time()
    found = flagged(pairs(works, public))
    named = {student: len(items) for student, items in solution_named(works, public).items()}
    return found, named, read, time.process_time() - started


def classes(size: int, seed: int) -> list[tuple[str, Callable[[Path], list[tuple[str, str, str]]]]]:
    """The classes of a size: honest; the copies planted (in a class of 40 or fewer, one kind a
    class, as a course of that size would hold); last round's."""
    planted = [("planted", list(KINDS) + ["leaked"])] if size > 40 else [(f"planted {k}", [k]) for k in KINDS]
    return [("honest", lambda d: integrity_converging.build(d, size, seed, ())),
            *((label, lambda d, kinds=kinds: integrity_converging.build(d, size, seed, kinds))  # type: ignore[misc]
              for label, kinds in planted),
            ("last round", lambda d: integrity_class.build(d, size, seed))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,40,150,1000")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--against", help="a commit whose analysis measures the same classes, for a line beside each")
    args = parser.parse_args()
    before = _against(args.against, args.sizes, args.seeds) if args.against else {}
    for size in map(int, args.sizes.split(",")):
        for seed in map(int, args.seeds.split(",")):
            for label, build in classes(size, seed):
                with tempfile.TemporaryDirectory(prefix="bench-calibration-") as tmp:
                    planted = build(Path(tmp) / "class")
                    found, named, read, score = analyse(Path(tmp) / "class")
                copies = {frozenset((a, b)): k for a, b, k in planted if b}
                leaked = {a for a, b, k in planted if not b}
                listed = {frozenset((p.a, p.b)) for p in found}
                honest = len(listed - copies.keys())
                total = size * (size - 1) // 2 - len(copies)
                by_kind = Counter(k for key, k in copies.items() if key in listed)
                kinds = Counter(copies.values())
                print(f"{size:5} seed {seed} {label:17}: honest pairs listed {honest} / {total} "
                      f"({honest / max(1, total):.3%}); copies found {sum(by_kind.values())} / {len(copies)} "
                      f"[{', '.join(f'{k} {by_kind[k]}/{kinds[k]}' for k in kinds)}]; solution: "
                      f"{len(leaked & named.keys())}/{len(leaked)} leaked named, {len(named.keys() - leaked)} others; "
                      f"CPU: read {read:.1f} s, score {score:.1f} s", flush=True)
                key = f"{size:5} seed {seed} {label:17}"
                if args.against:
                    print(f"{args.against[:12]:>{len(key)}}: {before.get(key, '(not measured there)')}", flush=True)


def _against(rev: str, sizes: str, seeds: str) -> dict[str, str]:
    """The lines this benchmark prints at commit ``rev``, by class (the text before the colon)."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="bench-calibration-rev-") as tmp:
        tree = subprocess.run(["git", "archive", rev, "grader", "benchmarks", "assignments", "reference"],
                              cwd=root, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=tree, check=True)
        done = subprocess.run([sys.executable, "benchmarks/bench_integrity_calibration.py", "--sizes", sizes,
                               "--seeds", seeds], cwd=tmp, check=True, capture_output=True, text=True,
                              env={"PYTHONPATH": tmp, "PATH": "/usr/bin:/bin"})
    return {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in done.stdout.splitlines() if ":" in line}


if __name__ == "__main__":
    main()
