"""The commands of the README and of the documentation site (docs/), checked where they cannot
be run and run where they can (tox's `readme` env runs this before it grades the sample class):

    python tests/readme_commands.py              # the checks: exit 0, or 1 with a line per problem
    python tests/readme_commands.py --run DIR    # then every page's grading of the sample class, into DIR

The README's two quick-start commands are checked for their shape. The first must take torch's
CPU build before the project is installed: pip would otherwise take PyPI's torch for Linux, the
CUDA build (about 2.7 GB with its nvidia-* wheels). The second must run tox's envs in parallel,
and be the one `.ci/run` runs.

Every `python -m grader` command of a page's bash blocks is parsed by the grader's own parser
(a flag renamed or a format misspelt fails here); every `python FILE.py` names a file of the
checkout. The grader commands that name the bundled sample class or its LMS downloads, and no
placeholder, are run for real, each into a folder of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CPU_INDEX = "--index-url https://download.pytorch.org/whl/cpu"
GRADE = "python -m grader grade assignments/attention/sample_class --out sample-grades"
BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)


def quick_start(readme: str) -> list[str]:
    """The bash blocks of the README's "Quick start" section, each one command."""
    start = readme.index("## Quick start")
    section = readme[start:readme.index("\n## ", start)]
    return [block.strip() for block in BLOCK.findall(section)]


def torch_pin(pyproject: str) -> str:
    """The requirement pyproject.toml pins torch to (``torch==2.13.0``)."""
    found = re.search(r'"(torch==[^"]+)"', pyproject)
    if found is None:
        raise ValueError("pyproject.toml pins no torch==")
    return found.group(1)


def problem(readme: str, pyproject: str, ci_run: str) -> str | None:
    """What is wrong with the quick start, in one line; None when it is as documented."""
    commands = quick_start(readme)
    if len(commands) < 2:
        return f"README.md: the quick start has {len(commands)} bash block(s), not its two commands"
    steps = [step.strip() for step in commands[0].split("&&")]
    pin = torch_pin(pyproject)
    cpu = [i for i, step in enumerate(steps) if "pip install" in step and pin in step.split() and CPU_INDEX in step]
    project = [i for i, step in enumerate(steps) if re.search(r"pip install (-e|--editable) \.", step)]
    if not cpu:
        return f"README.md: the first quick-start command installs no {pin} with {CPU_INDEX}"
    if not project or project[0] < cpu[0]:
        return "README.md: the first quick-start command installs the project before torch's CPU build"
    if not steps[-1].endswith(GRADE):
        return f"README.md: the first quick-start command does not end with {GRADE!r} (tox.ini's readme env runs it)"
    if not re.search(r"-m tox (p|run-parallel)(\s|$)", commands[1]):
        return "README.md: the second quick-start command does not run tox's envs in parallel (tox p)"
    if commands[1] not in ci_run.splitlines():
        return "README.md: the second quick-start command is not the one .ci/run runs"
    return None


def pages() -> dict[str, str]:
    """The README and every page of the site, by path from the root."""
    paths = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)]
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in paths}


def command_lines(markdown: str) -> list[str]:
    """Each command of a page's bash blocks: continuations joined, ``&&`` and ``;`` chains split."""
    found = []
    for block in re.findall(r"^ *```bash\n(.*?)^ *```", markdown, re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            found += [part.strip() for part in re.split(r"\s+&&\s+|;\s+|;$", line) if part.strip()]
    return found


GRADER = re.compile(r"^(?:\S*python3?\s+-m\s+grader|\S*attention-grader)(?=\s|$)")


def grader_argv(command: str) -> list[str] | None:
    """The arguments of a ``python -m grader`` command (``[--optional PARTS]`` as given), else None."""
    found = GRADER.match(command)
    if found is None:
        return None
    return shlex.split(command[found.end():].replace("[", "").replace("]", ""), comments=True)


def parse_problem(argv: list[str]) -> str | None:
    """What the grader's parser says of ``argv``, in one line; None when it parses."""
    from grader.cli import build_parser

    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as exit_:
        if exit_.code in (0, None):  # --version, -h
            return None
        return said.getvalue().strip().splitlines()[-1] if said.getvalue().strip() else "refused"
    return None


SAMPLES = ("assignments/attention/sample_class", "assignments/attention/sample_lms/")


def runnable(argv: list[str]) -> bool:
    """A grading of the bundled samples, with no placeholder (``OUT``, ``SUBMISSIONS``) in it."""
    return (argv[:1] == ["grade"] and any(arg.startswith(SAMPLES) for arg in argv)
            and not any(re.fullmatch(r"[A-Z][A-Z_]*", arg) for arg in argv))


def problems(texts: dict[str, str]) -> list[str]:
    """Each command of the pages that the grader would refuse, or that names a missing file."""
    found = []
    for page, text in texts.items():
        for command in command_lines(text):
            argv = grader_argv(command)
            if argv is not None:
                said = parse_problem(argv)
                if said:
                    found.append(f"{page}: `{command}`: {said}")
                continue
            # A file of the checkout (benchmarks/..., tests/...); check.py lies in the release folder.
            script = re.match(r"^\S*python3?\s+(\S+/\S+\.py)(\s|$)", command)
            if script and not (ROOT / script.group(1)).is_file():
                found.append(f"{page}: `{command}`: there is no {script.group(1)}")
    return found


def to_run(texts: dict[str, str]) -> list[list[str]]:
    """The pages' gradings of the samples, each once, in the pages' order; not the quick start's
    (tox's readme env runs that one itself, and counts its rows)."""
    runs: list[list[str]] = [grader_argv(GRADE) or []]
    for text in texts.values():
        for command in command_lines(text):
            argv = grader_argv(command)
            if argv is not None and runnable(argv) and argv not in runs:
                runs.append(argv)
    return runs[1:]


def run_all(runs: list[list[str]], into: Path) -> int:
    """Each grading with its ``--out`` moved into ``into``; the number that failed."""
    failed = 0
    for number, argv in enumerate(runs):
        argv = list(argv)
        argv[argv.index("--out") + 1] = str(into / f"run{number}")
        print("$ python -m grader " + shlex.join(argv), flush=True)
        done = subprocess.run([sys.executable, "-m", "grader", *argv, "--no-progress"], cwd=ROOT)
        failed += done.returncode != 0
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the README's and the site's commands")
    parser.add_argument("--run", type=Path, metavar="DIR", help="also run the pages' gradings of the samples")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))  # this checkout's grader, whatever else the interpreter has installed
    texts = pages()
    found = problem(*((ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "pyproject.toml", ".ci/run")))
    print(found or "README.md: the quick-start commands are as documented")
    others = problems(texts)
    print("\n".join(others) or f"every command of {len(texts)} pages parses, and every script named is there")
    if found or others:
        return 1
    if args.run:
        runs = to_run(texts)
        failed = run_all(runs, args.run)
        print(f"{len(runs) - failed} of {len(runs)} gradings of the samples in the pages ran")
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
