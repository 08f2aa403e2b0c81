"""The optional parts of the package: a missing one is a one-line usage error naming its install."""

from __future__ import annotations

import importlib.util

# extra -> what it is for, as the install line says it
EXTRAS = {"cluster": "grading on a Dask cluster", "course": "nbgrader (release, the round trip)"}


class MissingExtra(ValueError):
    """An optional dependency is not installed; the message names the command that installs it."""


def require_extra(module: str, extra: str, needed_by: str) -> None:
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise MissingExtra(f"{needed_by} needs {EXTRAS[extra]}, which is not installed: "
                           f"pip install 'attention-autograder[{extra}]'")
