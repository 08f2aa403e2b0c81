"""``attention-grader`` (the installed command; ``python -m grader`` is the same): a thin command
line over the library."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from . import __version__
from .assignment.config import DEFAULT_ASSIGNMENT, ConfigError
from .extras import require_dependencies, require_extra
from .render.words import GRADE_IN_FOLDER, GRADE_IN_FORMGRADER
from .reporters import CORE_REPORTERS, OLD_NAMES, REPORTERS, options_given, with_core
from .reporters import add_options as add_reporter_options
from .run.plan import COURSE, Outputs, RunPlan, ToGrade, WorkerPlan
from .sandbox.spec import SandboxError
from .stop import STOPPED, ending, stopped_by_signals

BUNDLE_HELP = "the assignment bundle: its folder, its YAML, or the name of a bundle shipped in assignments/"


COMMAND = "attention-grader"  # pyproject.toml's [project.scripts]


def invoked_as() -> str:
    """The command as the user typed it, for usage lines and ``--version``: the installed
    script's name (``attention-grader``, or whatever it was linked as); ``COMMAND`` when
    Python runs code, not a script (``python -c``, a ``.py`` file)."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return COMMAND if not name or name.startswith("-") or name.endswith(".py") else name


def build_parser(prog: str = COMMAND) -> argparse.ArgumentParser:
    """The whole command line, every verb and option (the documentation's command-line
    reference is generated from it, so it cannot drift from what runs)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    grade = commands.add_parser("grade", help="grade a class: one folder per student")
    grade.add_argument("submissions", type=Path, nargs="?",
                       help="folder with one sub-folder per student, or a Canvas or Moodle submissions download "
                       "(its zip or unpacked folder); not with --nbgrader")
    grade.add_argument("--out", type=Path, help="where the reports go (grades.csv, results.json, feedback/, ...); "
                       "with --nbgrader, default COURSE_DIR/grader-reports/ASSIGNMENT_ID")
    grade.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)
    grade.add_argument("--format", type=_formats, action="append", dest="formats", metavar="FORMAT[,FORMAT...]",
                       help=f"more outputs to write, repeatable: {', '.join(REPORTERS)} "
                       f"(every run writes {', '.join(CORE_REPORTERS)}: grades.csv, results.json, feedback/*.md)")
    grade.add_argument("--report", type=_formats, action="append", dest="formats", metavar="NAME",
                       help="the same as --format; also takes the old names " + ", ".join(OLD_NAMES))
    grade.add_argument("--nbgrader", type=Path, metavar="COURSE_DIR",
                       help="grade an nbgrader course's submitted/<student>/ASSIGNMENT_ID/ and write the scores "
                       "into its gradebook")
    grade.add_argument("--assignment-id", help="the nbgrader assignment (default: the bundle's name)")
    grade.add_argument("--seed", type=int, help="reproduce a run: the seed its results.json records")
    grade.add_argument("--jobs", type=int, help="worker processes (default: the cores this process may use, "
                       "capped by a cgroup CPU quota; never more than the students)")
    grade.add_argument("--scheduler", help="address of a dask.distributed scheduler to run on instead")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")
    grade.add_argument("--wait", action="store_true",
                       help="when another run is writing --out, wait for it to end (default: stop at once, naming it)")
    grade.add_argument("--no-diagnose", action="store_true",
                       help="do not name the known mistakes that explain lost points")
    grade.add_argument("--written", type=Path, action="append", default=[], metavar="FILE",
                       help="marks of the written answers to merge (repeatable): the run's written.csv filled in, "
                       "or the grading page's downloads; the output folder's own written.csv is always read")
    add_reporter_options(grade)

    release = commands.add_parser("release", help="generate the student notebooks with nbgrader")
    release.add_argument("--out", type=Path, required=True,
                         help="the folder to write: the student notebooks and check.py")
    release.add_argument("--force", action="store_true",
                         help="replace files in --out that differ from the release (a student's work, say)")
    release.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)
    release.add_argument("--source", type=Path, help="folder of the source notebooks (default: the bundle's)")

    gradescope = commands.add_parser("gradescope", help="build a Gradescope autograder zip (setup.sh, run_autograder)")
    gradescope.add_argument("--out", type=Path, required=True, help="the zip to write (e.g. autograder.zip)")
    gradescope.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)

    audit = commands.add_parser("audit", help="prove the checks: reference full, stubs zero, mutants caught")
    audit.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)
    audit.add_argument("--seed", type=int, default=None, help="reproduce an audit: the seed it printed")
    audit.add_argument("--jobs", type=int, help="worker processes (default: as for grade)")
    audit.add_argument("--auto", action="store_true", help="also mutate the reference automatically")
    audit.add_argument("--max-auto", type=int, default=None, help="cap on automatic mutants")

    new_item = commands.add_parser("new-item", help="add a new item to a bundle: YAML entry, checks, reference stub, "
                                   "notebook cells, catalogue (docs/authoring.md)")
    new_item.add_argument("name", help="the item: the student's function or class, as the contract names it")
    new_item.add_argument("--notebook", required=True, help="the notebook of the bundle it belongs to")
    new_item.add_argument("--module", action="store_true", help="a torch.nn.Module class (default: a function)")
    new_item.add_argument("--assignment", type=Path, default=DEFAULT_ASSIGNMENT, help=BUNDLE_HELP)
    return parser


def entry() -> NoReturn:
    """The ``attention-grader`` command."""
    exit_with(main())


def exit_with(status: int) -> NoReturn:
    """End the process with ``status``, as ``main`` returned it."""
    if status in STOPPED:
        # A run that a signal stopped has ended its workers and said so in one line: it exits
        # now, with the signal's status (130 for Ctrl-C). Through the interpreter's own exit,
        # under load, about 1 run in 5 of Ctrl-C as the workers start died of SIGINT instead
        # (strace: the interpreter reset SIGINT and sent it to itself on the way out).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    raise SystemExit(status)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = build_parser(prog or invoked_as())
    args = parser.parse_args(argv)
    with stopped_by_signals():
        return _run(args, parser.prog)


def _run(args: argparse.Namespace, prog: str) -> int:
    try:
        require_dependencies(args.command)
        if getattr(args, "assignment", None) is not None:  # a shipped bundle's name, as its YAML
            from .assignment.shipped import resolve_assignment

            args.assignment = resolve_assignment(args.assignment)
        if args.command == "grade":
            return _grade(args)
        if args.command == "release":
            require_extra("nbgrader", "course", "release")
            from .assignment.bundle import load_bundle
            from .nbgrader.release import release_assignment
            from .studentcheck.build import FILE_NAME as CHECK_PY

            for path in release_assignment(load_bundle(args.assignment), args.out, args.source, force=args.force):
                print(path)
            print(args.out / CHECK_PY)
            return 0
        if args.command == "gradescope":
            from .assignment.bundle import load_bundle
            from .gradescope_zip import build_zip

            names = build_zip(load_bundle(args.assignment), args.out)
            print(f"wrote {args.out} ({len(names)} files): upload it as the autograder; "
                  "see docs/instructors/gradescope.md")
            return 0
        if args.command == "new-item":
            from .authoring.new_item import new_item as write_item

            for path in write_item(args.assignment, args.name, args.notebook, args.module):
                print(path)
            print(f"next: write the reference of {args.name} (its stub is at the end of the reference module), "
                  f"then {prog} audit; docs/authoring.md")
            return 0
        from .audit import run_audit

        return run_audit(args.assignment, seed=args.seed, jobs=args.jobs, auto=args.auto, max_auto=args.max_auto)
    except (ConfigError, FileNotFoundError, ValueError, SandboxError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:  # Ctrl-C, or a stop signal (``grader.stop``)
        how, status = ending(interrupt)
        print(f"{how}: {args.command} stopped", file=sys.stderr)
        return status


def _formats(value: str) -> list[str]:
    """``csv,junit`` -> the reporters' names (old ``--report`` names accepted)."""
    names = [OLD_NAMES.get(name.strip(), name.strip()) for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in REPORTERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown format {', '.join(unknown) or repr(value)} "
                                         f"(choose from {', '.join(REPORTERS)})")
    return names


def _plan(args: argparse.Namespace) -> RunPlan:
    """The run's plan, from the command line; a ValueError for options that do not go together."""
    formats = with_core([name for names in args.formats or [] for name in names])
    outputs = Outputs(args.out, formats, options_given(args, formats), (), tuple(args.written), wait=args.wait)
    workers = WorkerPlan(args.seed, args.jobs, args.scheduler, diagnose=not args.no_diagnose)
    if args.nbgrader is not None:
        if args.submissions is not None:
            raise ValueError(f"grade: give either a class folder ({args.submissions}) or --nbgrader, not both")
        return RunPlan(ToGrade(args.nbgrader, COURSE, args.assignment_id or ""), outputs, args.assignment, workers)
    if args.assignment_id is not None:
        raise ValueError("grade: --assignment-id goes with --nbgrader COURSE_DIR")
    if args.submissions is None or args.out is None:
        raise ValueError("grade: give the class folder and --out (or --nbgrader COURSE_DIR)")
    return RunPlan(ToGrade(args.submissions), outputs, args.assignment, workers)


def _grade(args: argparse.Namespace) -> int:
    from .run.classrun import run_plan

    bar = None
    graded = "no"

    def progress(done: int, total: int) -> None:
        nonlocal bar, graded
        graded = f"{done} of {total}"
        if total < 2:
            return  # no bar for one submission: its summary follows at once
        if bar is None:
            # Imported here: the run has started its workers (or its zygote) first.
            from tqdm import tqdm

            # Every student shown as it is graded: one line of output per student is cheap, and
            # tqdm's own throttling would hide the first students of a slow start.
            bar = tqdm(total=total, unit="student", file=sys.stderr, disable=args.no_progress,
                       mininterval=0, miniters=1)
        bar.update(done - bar.n)

    plan = _plan(args)
    try:
        if plan.to_grade.layout == COURSE:
            from .nbgrader.autograde import grade_course

            outcome = grade_course(plan, progress).run
        else:
            outcome = run_plan(plan, progress)
    except BaseException as exc:
        if bar is not None:
            bar.close()  # its line ends before any message
        if not isinstance(exc, KeyboardInterrupt):
            raise
        how, status = ending(exc)
        print(f"{how}: {graded} students graded; {args.out or 'the output folder'} was left as it was"
              + (" and so was the gradebook" if args.nbgrader else ""), file=sys.stderr)
        return status
    if bar is not None:
        bar.close()
    step = GRADE_IN_FORMGRADER if args.nbgrader is not None else GRADE_IN_FOLDER
    for line in replace(outcome.summary, written_step=step).lines():
        print(line)
    print(f"seed {outcome.seed}; {outcome.seconds:.1f} s; wrote {', '.join(plan.outputs.formats)} into "
          f"{outcome.out_dir}")
    if outcome.refused:
        print(f"error: {outcome.refused}", file=sys.stderr)
        return 1
    if args.nbgrader is not None:  # the written answers awaiting a grader are counted once, in the summary
        print(f"scores written into the nbgrader gradebook of {args.nbgrader}, and its autograded/ notebooks for "
              "formgrader")
    return 0
