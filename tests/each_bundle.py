"""Every shipped bundle through the same gates (tox runs it; not a pytest module).

    python tests/each_bundle.py audit [ARGS]      python -m grader audit --assignment NAME ARGS, for each
    python tests/each_bundle.py roundtrip [ARGS]  tests/nbgrader_roundtrip.py --assignment NAME ARGS, for each
    python tests/each_bundle.py tests [ARGS]      bundle_support.PER_BUNDLE with TESTS_BUNDLE set to each
                                                  bundle but the first (pytest's own run covers the first)

The shipped bundles are the folders of assignments/ that hold an assignment.yaml, the first
assignment first (``grader.assignment.shipped``): a bundle added there is gated with no edit
here. Each run says which bundle it is for; the exit status is the first failure's, else 0.
``tests`` with ARGS (pytest narrowed to some tests) runs nothing: the narrowing was for pytest's run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bundle_support import BUNDLE_VARIABLE, PER_BUNDLE  # noqa: E402

from grader.assignment.shipped import shipped_names, shipped_yaml  # noqa: E402


def commands(gate: str, names: tuple[str, ...], args: list[str]) -> list[tuple[str, list[str], dict[str, str]]]:
    """(bundle, command, environment) for each run of ``gate``."""
    if gate == "audit":
        return [(name, ["-m", "grader", "audit", "--assignment", name, *args], {}) for name in names]
    if gate == "roundtrip":
        return [(name, ["tests/nbgrader_roundtrip.py", "--assignment", name, *args], {}) for name in names]
    if args:
        return []
    return [(name, ["-m", "pytest", "-p", "no:cacheprovider", *run], {BUNDLE_VARIABLE: str(shipped_yaml(name))})
            for name in names[1:] for run in PER_BUNDLE]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("audit", "roundtrip", "tests"):
        print("usage: python tests/each_bundle.py {audit,roundtrip,tests} [ARGS]", file=sys.stderr)
        return 2
    names = shipped_names()
    runs = commands(argv[0], names, argv[1:])
    if not runs:
        print(f"each_bundle {argv[0]}: nothing to run (shipped: {', '.join(names)}; arguments: {argv[1:]})")
    status = 0
    for name, command, env in runs:
        print(f"== {argv[0]} of the bundle {name}: python {' '.join(command)}", flush=True)
        done = subprocess.run([sys.executable, *command], cwd=ROOT, env={**os.environ, **env})
        status = status or done.returncode
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
