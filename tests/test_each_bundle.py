"""Every shipped bundle goes through the same gates: tox's audit and nbgrader envs run them for
each, and py311-np2 runs the tests that hold for any bundle on each but the first
(tests/each_bundle.py), so that a bundle added to assignments/ is neither skipped nor edited in."""

from __future__ import annotations

import ast
import configparser
import re

from bundle_support import BUNDLE_VARIABLE, PER_BUNDLE
from each_bundle import commands
from readme_commands import ROOT

from grader.assignment.shipped import shipped_yaml

NAMES = ("attention", "llm_attention")


def test_the_audit_and_the_round_trip_run_for_every_bundle_the_first_included():
    for gate, script in (("audit", "grader"), ("roundtrip", "tests/nbgrader_roundtrip.py")):
        runs = commands(gate, NAMES, ["--seed", "1"])
        assert [name for name, _, _ in runs] == list(NAMES)
        for name, command, env in runs:
            assert script in command and command[-4:] == ["--assignment", name, "--seed", "1"] and env == {}


def test_the_bundle_tests_run_on_every_bundle_but_the_first_and_not_when_pytest_was_narrowed():
    runs = commands("tests", NAMES, [])
    assert len(runs) == len(PER_BUNDLE)
    assert {(name, env[BUNDLE_VARIABLE]) for name, _, env in runs} == {("llm_attention",
                                                                         str(shipped_yaml("llm_attention")))}
    assert [command[4:] for _, command, _ in runs] == [list(run) for run in PER_BUNDLE]
    assert commands("tests", NAMES, ["tests/test_wire.py"]) == []
    assert commands("tests", NAMES[:1], []) == []


def test_tox_runs_each_gate_through_it():
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    assert tox["testenv:audit"]["commands"].split() == ["python", "tests/each_bundle.py", "audit", "{posargs}"]
    assert tox["testenv:nbgrader"]["commands"].split() == ["python", "tests/each_bundle.py", "roundtrip", "{posargs}"]
    assert "py311-np2: python tests/each_bundle.py tests {posargs}" in tox["testenv"]["commands"]


def test_each_run_of_the_bundle_tests_names_tests_there_are():
    """Each -k word is part of a test's name in its file, so that a renamed test is not silently left out."""
    for path, _, expression in PER_BUNDLE:
        names = [node.name for node in ast.walk(ast.parse((ROOT / path).read_text(encoding="utf-8")))
                 if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
        words = [word for word in re.split(r"\s+", expression) if word not in ("or", "and", "not")]
        assert words and all(any(word in name for name in names) for word in words), (path, expression)
