"""A class folder graded with the wrong bundle: no student holds a notebook of the assignment
being graded, but some hold another shipped assignment's. Every row would be a zero, so the run
stops first and names the ``--assignment`` that fits."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..assignment.bundle import read_outline
from ..assignment.config import Assignment, ConfigError
from ..assignment.shipped import shipped_names, shipped_yaml
from .load import find_notebook


def _holds(folder: Path, assignment: str, notebooks: Sequence[str]) -> list[str]:
    if folder.is_symlink():  # never followed: that student's row says so
        return []
    return [notebook for notebook in notebooks if find_notebook(folder, assignment, notebook) is not None]


def other_assignment(students: Sequence[Path], assignment: Assignment) -> str | None:
    """Why ``students`` are not ``assignment``'s class, in one line, when none holds any of its
    notebooks and some hold another shipped bundle's; None otherwise (the first student holding
    one of its notebooks ends the search: a right class costs one look)."""
    if any(_holds(folder, assignment.name, assignment.notebooks) for folder in students):
        return None
    for name in shipped_names():
        try:
            other = read_outline(shipped_yaml(name)).assignment
        except ConfigError:
            continue  # a broken bundle beside this one is that bundle's audit's business
        if other.name == assignment.name or set(other.notebooks) & set(assignment.notebooks):
            continue
        holding = [folder for folder in students if _holds(folder, other.name, other.notebooks)]
        if holding:
            found = ", ".join(f"{notebook}.ipynb" for notebook in other.notebooks)
            return (f"no student folder holds a notebook of {assignment.name!r} "
                    f"({', '.join(f'{nb}.ipynb' for nb in assignment.notebooks)}), but {len(holding)} of "
                    f"{len(students)} hold {other.name!r}'s ({found}): grade them with --assignment {name}")
    return None
