"""The one-line error for a missing dependency names the command to run, once."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("args, run", [([], "python -m grader"), (["grade", "x"], "python -m grader grade")])
def test_a_missing_dependency_names_the_venvs_command_once(args: list[str], run: str):
    # tqdm hidden from this interpreter, as the system's python3 lacks it
    hide = f"import runpy, sys; sys.modules['tqdm'] = None; sys.argv = ['grader', *{args!r}]; " \
           "runpy.run_module('grader', run_name='__main__')"
    proc = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert f"(.venv/bin/{run} ...)" in proc.stderr and "grader python -m grader" not in proc.stderr
