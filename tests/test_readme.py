"""The README's quick start: its first command takes torch's CPU build before the project
(checked for its shape: PyTorch's index cannot be reached from CI), its second runs tox's
envs in parallel and is CI's."""

from __future__ import annotations

from readme_commands import ROOT, problem

PYPROJECT = '[project]\ndependencies = [\n    "numpy>=1.26",\n    "torch==2.13.0",\n]\n'
CI_RUN = 'python3 -m pip install tox && python3 -m tox p\n'
GRADE = ".venv/bin/python -m grader grade assignments/attention/sample_class --out sample-grades"
CPU = ".venv/bin/pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"


def readme(first: str, second: str = "python3 -m pip install tox && python3 -m tox p") -> str:
    return f"# x\n\n## Quick start\n\n```bash\n{first}\n```\n```bash\n{second}\n```\n\n## Next\n"


def test_the_readme_and_ci_are_as_documented():
    texts = [(ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "pyproject.toml", ".ci/run")]
    assert problem(*texts) is None


def test_the_cpu_build_comes_before_the_project():
    assert problem(readme(f"{CPU} && .venv/bin/pip install -e . && {GRADE}"), PYPROJECT, CI_RUN) is None
    # The order the issue found: CUDA torch is installed by the time the CPU advice is read.
    assert "before torch's CPU build" in problem(readme(f".venv/bin/pip install -e . && {CPU} && {GRADE}"),
                                                 PYPROJECT, CI_RUN)
    assert "installs no torch==2.13.0" in problem(readme(f".venv/bin/pip install -e . && {GRADE}"), PYPROJECT, CI_RUN)
    # Another pin than pyproject's would be replaced by the project's install.
    other = CPU.replace("2.13.0", "2.12.0")
    assert "installs no" in problem(readme(f"{other} && .venv/bin/pip install -e . && {GRADE}"), PYPROJECT, CI_RUN)
    assert "does not end with" in problem(readme(f"{CPU} && .venv/bin/pip install -e ."), PYPROJECT, CI_RUN)


def test_the_second_command_is_what_ci_runs():
    first = f"{CPU} && .venv/bin/pip install -e . && {GRADE}"
    assert "not the one .ci/run runs" in problem(readme(first, "python3 -m tox p --discover x"), PYPROJECT, CI_RUN)
    assert "in parallel" in problem(readme(first, "python3 -m pip install tox && python3 -m tox"), PYPROJECT, CI_RUN)
    assert "bash block(s)" in problem("## Quick start\n\n```bash\nx\n```\n\n## Next\n", PYPROJECT, CI_RUN)
