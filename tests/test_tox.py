"""The tox matrix: the tests marked ``once`` run in py311-np2 and nowhere else among the pytest
envs (the numerics everywhere), and a parallel run shows every env's output."""

from __future__ import annotations

import configparser
import itertools
import os
import re
import subprocess
import sys

from matrix_support import ONCE, ONCE_VARIABLE
from readme_commands import ROOT

FULL = "py311-np2"


def tox_ini() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    return parser


def env_names(env_list: str) -> list[str]:
    """env_list's names, ``py{310,311}-np{126,2}`` expanded as tox does."""
    names = []
    for line in env_list.split():
        parts = [group.split(",") for group in re.split(r"[{}]", line)]
        names += ["".join(choice) for choice in itertools.product(*parts)]
    return names


def applies(condition: str, env: str) -> bool:
    """Whether a tox factor condition (``a,b-!c``: a, or b and not c) holds for ``env``."""
    factors = set(env.split("-"))
    return any(all((f[1:] not in factors) if f.startswith("!") else (f in factors) for f in group.split("-"))
               for group in condition.split(","))


def test_the_once_tests_run_in_the_full_env_alone():
    tox = tox_ini()
    pytest_envs = [env for env in env_names(tox["tox"]["env_list"]) if f"testenv:{env}" not in tox]
    assert FULL in pytest_envs and len(pytest_envs) > 1
    lines = [line.split(":", 1) for line in tox["testenv"]["set_env"].splitlines() if ONCE_VARIABLE in line]
    assert lines and all(value.split("=") == [f" {ONCE_VARIABLE} ", " deselect"] for _, value in lines), lines
    deselecting = {env for env in pytest_envs if any(applies(condition.strip(), env) for condition, _ in lines)}
    assert deselecting == set(pytest_envs) - {FULL}
    # Named envs (unprivileged runs tests/hostile) keep everything: their own set_env, or none of these factors.
    assert not any(applies(condition.strip(), env) for condition, _ in lines
                   for env in env_names(tox["tox"]["env_list"]) if f"testenv:{env}" in tox)


def test_a_parallel_run_shows_each_envs_output():
    assert tox_ini()["testenv"]["parallel_show_output"].strip() == "true"


def collect(*paths: str, value: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *paths],
                          cwd=ROOT, env={**os.environ, ONCE_VARIABLE: value}, capture_output=True, text=True,
                          timeout=300)


def test_deselect_leaves_out_the_once_tests_and_keeps_the_numerics():
    # LMS intake: a once module that needs neither torch nor nbgrader, so it is collected everywhere.
    kept = collect("tests/lms/test_intake.py", "tests/test_wire.py", value="deselect")
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "tests/test_wire.py::" in kept.stdout and "tests/lms/test_intake.py" not in kept.stdout
    assert re.search(r"\d+/\d+ tests collected \(\d+ deselected\)", kept.stdout), kept.stdout[-500:]
    everything = collect("tests/lms/test_intake.py", value="")
    assert everything.returncode == 0 and "tests/lms/test_intake.py::" in everything.stdout


def test_another_value_is_one_line():
    wrong = collect("tests/test_wire.py", value="skip")
    assert wrong.returncode == 4 and f"{ONCE_VARIABLE}='skip': the only value is 'deselect'" in wrong.stderr


def test_every_once_path_is_there():
    assert all((ROOT / path).exists() for path in ONCE)
