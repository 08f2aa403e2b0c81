"""A stand-in for ``matplotlib.pyplot`` while grading: plots are not graded, and laying
out a figure costs more than grading a whole notebook.

Every call succeeds and returns another stand-in, so notebook cells that draw (heatmaps,
colour bars, ``tight_layout``) run to the end without drawing anything.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any


class Null:
    """Absorbs any attribute access, call, index, context or iteration."""

    def __call__(self, *args: Any, **kwargs: Any) -> Null:
        return Null()

    def __getattr__(self, name: str) -> Null:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Null()

    def __getitem__(self, key: Any) -> Null:
        return Null()

    def __setitem__(self, key: Any, value: Any) -> None:
        return None

    def __iter__(self) -> Iterator[Null]:
        return iter(())

    def __enter__(self) -> Null:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __bool__(self) -> bool:
        return False

    def __len__(self) -> int:
        return 0


def _subplots(nrows: int = 1, ncols: int = 1, *args: Any, squeeze: bool = True, **kwargs: Any) -> tuple[Null, Any]:
    import numpy as np

    axes = np.empty((nrows, ncols), dtype=object)
    for index in np.ndindex(axes.shape):
        axes[index] = Null()
    if squeeze:
        axes = axes.squeeze()
        if axes.shape == ():
            return Null(), axes.item()
    return Null(), axes


class _Pyplot(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Null()


def install() -> None:
    """Replace ``matplotlib.pyplot`` (and seaborn) for the rest of this process."""
    pyplot = _Pyplot("matplotlib.pyplot", __doc__)
    pyplot.subplots = _subplots  # type: ignore[attr-defined]
    sys.modules["matplotlib.pyplot"] = pyplot
    sys.modules["seaborn"] = _Pyplot("seaborn", __doc__)
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None:
        matplotlib.pyplot = pyplot  # type: ignore[attr-defined]
