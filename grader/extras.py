"""The package's dependencies and optional parts: a missing one is a one-line usage error naming
the interpreter that lacks it and the install that works (the package is on no index: from its
checkout, ``pip install -e``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# extra -> what it is for, as the install line says it
EXTRAS = {"cluster": "grading on a Dask cluster", "course": "nbgrader (release, the round trip)"}
# module -> its distribution: pyproject.toml's dependencies that every command needs
# (tests/test_cli_usage.py keeps the two lists equal). torch is left out: only the torch
# notebook's items need it, and they say so themselves.
REQUIRED = {"numpy": "numpy", "yaml": "pyyaml", "nbformat": "nbformat", "IPython": "ipython", "tqdm": "tqdm",
            "matplotlib": "matplotlib"}


class MissingExtra(ValueError):
    """An optional dependency is not installed; the message names the command that installs it."""


def install_command(extra: str | None = None) -> str:
    """``<this interpreter> -m pip install -e '<checkout>[extra]'``: the checkout this package runs
    from ('.' when it is the working folder), or a placeholder where it is installed without one."""
    root = Path(__file__).resolve().parents[1]
    if not (root / "pyproject.toml").is_file():
        where = "THE_GRADER_CHECKOUT"
    elif root == Path.cwd().resolve():
        where = "."
    else:
        where = str(root)
    return f"{sys.executable} -m pip install -e '{where}{f'[{extra}]' if extra else ''}'"


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_dependencies(command: str | None) -> None:
    """Every dependency of the package is importable, or one error naming those that are not;
    ``command`` is the subcommand given, None when there is none."""
    missing = [dist for module, dist in REQUIRED.items() if not _found(module)]
    if missing:  # most often: the system's python3, not the venv's
        run = f"python -m grader {command}" if command else "python -m grader"
        raise MissingExtra(f"{command or run} needs {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} "
                           f"not installed for {sys.executable}: run the venv's interpreter (.venv/bin/{run} ...) "
                           f"or install the grader for this one: {install_command()}")


def require_extra(module: str, extra: str, needed_by: str) -> None:
    if not _found(module):  # naming the interpreter: the usual cause is a venv that is not the one in use
        raise MissingExtra(f"{needed_by} needs {EXTRAS[extra]}, which is not installed for {sys.executable}: "
                           f"{install_command(extra)} (or run the interpreter of the venv where it is installed)")
