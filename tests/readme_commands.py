"""The README's two quick-start commands, checked for their shape where they cannot be run
(tox's `readme` env runs this before it grades the sample class):

    python tests/readme_commands.py      # exit 0: as documented; 1: one line saying what is wrong

The first command must take torch's CPU build before the project is installed: pip would
otherwise take PyPI's torch for Linux, the CUDA build (about 2.7 GB with its nvidia-* wheels).
The second must run tox's envs in parallel, and be the one `.ci/run` runs.
"""

from __future__ import annotations

import re
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


def main() -> int:
    found = problem(*((ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "pyproject.toml", ".ci/run")))
    print(found or "README.md: the quick-start commands are as documented")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
