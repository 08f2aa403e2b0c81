"""Every path that a command writes by default, or that a page's example writes (students'
grades, the hidden checks in a Gradescope zip), is in .gitignore: a course that follows the
docs in its own checkout cannot commit them by mistake."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from readme_commands import ROOT, command_lines, grader_argv, pages, parse_problem

from grader.cli import build_parser

PLACEHOLDER = re.compile(r"[A-Z][A-Z_]*|.*[{$].*")


def written_paths() -> set[str]:
    """The output of each grader command on the pages, as a path inside the checkout; with
    --nbgrader and no --out, the default the help names (COURSE_DIR/grader-reports/ASSIGNMENT_ID)."""
    found = set()
    for text in pages().values():
        for command in command_lines(text):
            argv = grader_argv(command)
            if argv is None or parse_problem(argv) is not None or {"-h", "--help", "--version"} & set(argv):
                continue
            args = build_parser().parse_args(argv)
            out = getattr(args, "out", None)
            if out is None and getattr(args, "nbgrader", None) is not None:
                out = Path("course") / "grader-reports" / (args.assignment_id or "attention")
            if out is not None and not PLACEHOLDER.fullmatch(str(out)):
                # a folder's files, or the zip itself
                found.add(str(out) if out.suffix == ".zip" else f"{str(out).rstrip('/')}/grades.csv")
    return found


def test_the_default_outputs_are_in_gitignore():
    paths = written_paths() | {"course/grader-reports/attention/grades.csv", "site/index.html"}  # mkdocs's site_dir
    assert {"canvas-grades/grades.csv", "moodle-grades/grades.csv", "autograder.zip"} <= paths
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(sorted(paths)),
                             capture_output=True, text=True, cwd=ROOT, timeout=600).stdout.split()
    assert sorted(paths - set(ignored)) == []
