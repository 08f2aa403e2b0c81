"""``python -m grader``: a thin command line over the library."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__
from .config import DEFAULT_ASSIGNMENT, ConfigError
from .extras import require_extra
from .reporters import DEFAULT_REPORTERS, REPORTERS

BUNDLE_HELP = "the assignment bundle: its folder or its YAML"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    grade = commands.add_parser("grade", help="grade a class: one folder per student")
    grade.add_argument("submissions", type=Path, help="folder with one sub-folder per student")
    grade.add_argument("--out", type=Path, required=True, help="where the reports (grades.csv, results.json, "
                       "feedback/) go")
    grade.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)
    grade.add_argument("--report", action="append", choices=sorted(REPORTERS), dest="reports",
                       help=f"an output to write (repeatable; default: {', '.join(DEFAULT_REPORTERS)})")
    grade.add_argument("--seed", type=int, help="reproduce a run: the seed its results.json records")
    grade.add_argument("--jobs", type=int, help="worker processes (default: the number of cores)")
    grade.add_argument("--scheduler", help="address of a dask.distributed scheduler to run on instead")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")

    release = commands.add_parser("release", help="generate the student notebooks with nbgrader")
    release.add_argument("--out", type=Path, required=True)
    release.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)
    release.add_argument("--source", type=Path, help="folder of the source notebooks (default: the bundle's)")

    audit = commands.add_parser("audit", help="prove the checks: reference full, stubs zero, mutants caught")
    audit.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)
    audit.add_argument("--seed", type=int, default=None)
    audit.add_argument("--jobs", type=int)
    audit.add_argument("--auto", action="store_true", help="also mutate the reference automatically")
    audit.add_argument("--max-auto", type=int, default=None, help="cap on automatic mutants")

    args = parser.parse_args(argv)
    try:
        if args.command == "grade":
            return _grade(args)
        if args.command == "release":
            require_extra("nbgrader", "course", "release")
            from .bundle import load_bundle
            from .release import release_assignment
            from .studentcheck.generate import FILE_NAME as CHECK_PY

            for path in release_assignment(load_bundle(args.assignment), args.out, args.source):
                print(path)
            print(args.out / CHECK_PY)
            return 0
        from .audit import run_audit

        return run_audit(args.assignment, seed=args.seed, jobs=args.jobs, auto=args.auto, max_auto=args.max_auto)
    except (ConfigError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: {args.command} stopped", file=sys.stderr)
        return 130


def _grade(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .grade import grade_class

    bar = None
    graded = "no"

    def progress(done: int, total: int) -> None:
        nonlocal bar, graded
        if bar is None:
            bar = tqdm(total=total, unit="student", file=sys.stderr, disable=args.no_progress)
        bar.update(1)
        graded = f"{done} of {total}"

    reports = tuple(dict.fromkeys(args.reports or DEFAULT_REPORTERS))
    try:
        outcome = grade_class(args.submissions, args.out, assignment_path=args.assignment, seed=args.seed,
                              jobs=args.jobs, scheduler=args.scheduler, reporters=reports, progress=progress)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(f"interrupted: {graded} students graded; {args.out} was left as it was", file=sys.stderr)
        return 130
    if bar is not None:
        bar.close()
    for line in outcome.summary.lines():
        print(line)
    print(f"seed {outcome.seed}; {outcome.seconds:.1f} s; wrote {', '.join(reports)} into {outcome.out_dir}")
    return 0
