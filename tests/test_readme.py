"""The README's quick start: its first command takes torch's CPU build before the project
(checked for its shape: PyTorch's index cannot be reached from CI), its second runs tox's
envs in parallel and is CI's. The site's commands: each grader command parsed by the grader's
parser, each script named there, the gradings of the samples picked out to run."""

from __future__ import annotations

from readme_commands import ROOT, command_lines, grader_argv, pages, problem, problems, runnable, to_run

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


def test_every_command_of_the_pages_parses():
    assert problems(pages()) == []


def test_a_command_the_grader_refuses_is_one_line_naming_its_page():
    page = ("```bash\npython -m grader grade SUBMISSIONS --out OUT --format htm\n"
            "python benchmarks/nothing.py --n 2\n```\n")
    found = problems({"docs/x.md": page})
    assert len(found) == 2 and all(line.startswith("docs/x.md: `") for line in found)
    assert "unknown format htm" in found[0] and "there is no benchmarks/nothing.py" in found[1]
    assert problems({"docs/x.md": "```bash\npython -m grader audit --sede 3\n```\n"})[0].endswith(
        "unrecognized arguments: --sede 3")


def test_commands_are_read_as_a_shell_reads_them():
    page = ("Text.\n\n    ```bash\n    cd X   # a comment\n    python -m grader grade a \\\n        --out b"
            " [--seed N]\n    nbgrader release_assignment a; nbgrader collect a\n    ```\n")
    assert command_lines(page) == ["cd X   # a comment", "python -m grader grade a          --out b [--seed N]",
                                   "nbgrader release_assignment a", "nbgrader collect a"]
    argv = grader_argv("python -m grader grade a --out b [--seed N]  # why")
    assert argv == ["grade", "a", "--out", "b", "--seed", "N"]
    assert grader_argv(".venv/bin/attention-grader --version") == ["--version"]
    assert grader_argv("python -m grader.generate.lms_downloads") is None


def test_the_gradings_of_the_samples_run_and_placeholders_do_not():
    assert runnable(["grade", "assignments/attention/sample_class", "--out", "x", "--format", "html"])
    assert not runnable(["grade", "SUBMISSIONS", "--out", "OUT"])
    assert not runnable(["grade", "assignments/attention/sample_class", "--out", "OUT"])
    assert not runnable(["release", "--out", "assignments/attention/sample_class"])
    runs = to_run(pages())
    # The quick start's own grading is the readme env's command; the pages add the LMS downloads.
    assert ["grade", "assignments/attention/sample_class", "--out", "sample-grades"] not in runs
    assert any("canvas_submissions.zip" in arg for argv in runs for arg in argv)
