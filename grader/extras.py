"""The optional parts of the package: a missing one is a one-line usage error naming its install."""

from __future__ import annotations

import importlib.util
import sys

# extra -> what it is for, as the install line says it
EXTRAS = {"cluster": "grading on a Dask cluster", "course": "nbgrader (release, the round trip)"}


class MissingExtra(ValueError):
    """An optional dependency is not installed; the message names the command that installs it."""


def require_extra(module: str, extra: str, needed_by: str) -> None:
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:  # naming the interpreter: the usual cause is a venv that is not the one in use
        raise MissingExtra(f"{needed_by} needs {EXTRAS[extra]}, which is not installed for {sys.executable}: "
                           f"{sys.executable} -m pip install 'attention-autograder[{extra}]' (or run the "
                           "interpreter of the venv where it is installed)")
