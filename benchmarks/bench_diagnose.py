"""The diagnosis alone, in one process: what it costs the workers of a class run.

The buggy students of ``bench_grade.py``'s class (``--n``: 250 of 1,000) are graded once in
this process (each one's item on the reference with its mutant appended, the in-process
runner), their recordings kept; then each round diagnoses all of them with ``--workers``
fresh ``Diagnoser``s, the students dealt out in turn as the pool deals them, so that each
worker loads its own mutants and runs them on the requests it meets (the cost that is fixed
per worker) besides comparing replies (the cost per student). Prints each round's CPU and wall
time and a digest of every diagnosis made (equal digests: the same mistakes named)::

    python benchmarks/bench_diagnose.py                   # 3 rounds, 2 workers, --n 1000
    python benchmarks/bench_diagnose.py --profile         # and where the time goes (cProfile)

The first round of a process may name a mistake less than the others: a mutant's first
torch call can overrun its time limit, and is then not run again by that worker.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import sys
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import numpy as np  # noqa: E402
import synthetic  # noqa: E402

from grader.assignment.bundle import load_bundle  # noqa: E402
from grader.assignment.catalogue import load_catalogue  # noqa: E402
from grader.assignment.config import DEFAULT_ASSIGNMENT, Item  # noqa: E402
from grader.diagnosis.diagnose import Diagnoser  # noqa: E402
from grader.diagnosis.record import Recording  # noqa: E402
from grader.records.results import CheckResult, Diagnosis  # noqa: E402
from grader.runners import serve  # noqa: E402
from grader.runners.inprocess import InProcessRunner  # noqa: E402
from grader.threads import pin_torch  # noqa: E402
from grader.worker.score import run_item  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1000, help="the class size of bench_grade.py (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions over all rounds")
    args = parser.parse_args()

    import torch  # noqa: F401  (a worker has it loaded, with one thread)

    pin_torch()
    warnings.simplefilter("ignore")  # the students' overflows
    np.seterr(all="ignore")
    bundle = load_bundle(DEFAULT_ASSIGNMENT)
    entries = {e.name: e for e in load_catalogue(bundle, ("mutant",))}
    recorded: list[tuple[Item, Recording, tuple[CheckResult, ...]]] = []

    def keep(item: Item, recording: Recording, checks: Any) -> tuple[Diagnosis, ...]:
        recorded.append((item, recording, tuple(checks)))
        return ()

    for student in synthetic.plan(args.n):
        if student.kind != "buggy":
            continue
        entry = entries[student.detail]
        item = bundle.assignment.item(entry.item)
        namespace = serve.new_namespace(item.notebook)
        serve.exec_cell(0, f"{bundle.reference_source(item.notebook)}\n\n{entry.code}", namespace)
        run_item(item, InProcessRunner(namespace, seconds=5), args.seed, bundle.checks, keep)

    profile = cProfile.Profile() if args.profile else None
    for round_ in range(args.rounds):
        workers = [Diagnoser(bundle) for _ in range(args.workers)]
        named = []
        cpu, wall = time.process_time(), time.perf_counter()
        if profile:
            profile.enable()
        for k, (item, recording, checks) in enumerate(recorded):
            named.append([d.mistake for d in workers[k % len(workers)].diagnose(item, recording, checks)])
        if profile:
            profile.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        digest = hashlib.sha256(json.dumps(named).encode()).hexdigest()[:16]
        print(f"round {round_}: {len(recorded)} items diagnosed, {sum(1 for n in named if n)} named; "
              f"CPU {cpu:.3f} s, wall {wall:.3f} s; digest {digest}", flush=True)
    if profile:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
    return 0


if __name__ == "__main__":
    sys.exit(main())
