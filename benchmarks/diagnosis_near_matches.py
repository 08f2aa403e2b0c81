"""Would a near match name the right idea? The measurement behind the diagnosis's rule (a
mutant must reproduce every compared reply; docs/authors/catalogue.md, "No near matches").

Each held-out submission of ``tests/data/heldout`` is graded in this process (its item on the
reference with its code appended) and, where it lost points, every mutant of its item is put
the requests of the compared calls: printed is the largest fraction of those replies any one
mutant reproduces, and which. ``--without`` leaves mutants out (by default the variants added
for students' versions of a classic mistake), to see what a near match would have named
without them::

    python benchmarks/diagnosis_near_matches.py
    python benchmarks/diagnosis_near_matches.py --without ''     # the whole catalogue

A rule "name the nearest mutant above a threshold" is safe only when every right answer is
above every wrong one: compare the ``expect`` column's classic mistakes with the ``none`` rows
(mistakes the catalogue does not hold).
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

import numpy as np  # noqa: E402

from grader.assignment.bundle import load_bundle  # noqa: E402
from grader.assignment.config import DEFAULT_ASSIGNMENT  # noqa: E402
from grader.checks.base import Trial  # noqa: E402
from grader.diagnosis import diagnose  # noqa: E402
from grader.diagnosis.replies import read, same  # noqa: E402
from grader.runners import serve  # noqa: E402
from grader.runners.inprocess import InProcessRunner  # noqa: E402
from grader.worker.score import run_item  # noqa: E402

VARIANTS = ("sdpa_inverted_mask_inf,causal_mask_inverted_with_diagonal,pe_exponent_column_index,"
            "pe_module_plain_attribute,mha_inverted_mask_1e9")


class Nearest(diagnose.Diagnoser):
    """Names nothing; keeps, per item, the best (fraction of compared replies, mutant)."""

    def __init__(self, bundle: Any, left_out: set[str]):
        super().__init__(bundle)
        self.left_out = left_out
        self.best: tuple[float, str] = (0.0, "-")

    def explaining(self, item: Any, exchanges: Any, checks: Any, runner: Any) -> list:
        compared = diagnose._compared(exchanges, checks)
        t = Trial(item=item, check="(near)", seed=0, rng_seed=[0], runner=runner)
        self.best = (0.0, "-")
        for entry in self.mutants(item.name):
            if entry.name in self.left_out:
                continue
            replies = [self._reply(t, entry.name, entry.notebook, entry.code, e, diagnose._key(e)) for e in compared]
            kept = [(e, r) for e, r in zip(compared, replies, strict=True) if r is not diagnose.INDETERMINATE]
            hits = sum(same(t, read(e.reply), r) for e, r in kept)
            self.best = max(self.best, (hits / max(len(kept), 1), entry.name))
        return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--without", default=VARIANTS, help="mutants left out, comma-separated")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    bundle = load_bundle(DEFAULT_ASSIGNMENT)
    nearest = Nearest(bundle, {n for n in args.without.split(",") if n})
    print(f"{'held-out':32} {'expect':36} best  nearest mutant")
    for path in sorted((HERE.parent / "tests" / "data" / "heldout").glob("*.py")):
        code = path.read_text(encoding="utf-8")
        header = dict(re.findall(r"^# (item|expect): *(\S+)", code, re.MULTILINE))
        item = bundle.assignment.item(header["item"])
        namespace = serve.new_namespace(item.notebook)
        serve.exec_cell(0, f"{bundle.reference_source(item.notebook)}\n\n{code}", namespace)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result, _ = run_item(item, InProcessRunner(namespace, seconds=5), args.seed, bundle.checks,
                                 nearest.diagnose)
        if result.earned < result.points:
            fraction, name = nearest.best
            print(f"{path.stem:32} {header['expect']:36} {fraction:.2f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
