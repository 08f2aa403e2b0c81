"""Pictures of an item's public example: what the student's code returned on fixed, public
inputs, beside what it should have returned, as plain tables a reporter can draw.

A bundle's example function (``@REGISTRY.example(item)``) calls the student's code through
its ``Trial`` like a check does and hands each answer to ``picture``; it runs in the trusted
process, on inputs the student has already seen in the notebook, so nothing of the hidden
checks is shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..records.results import PICTURE_ENTRIES, Picture, Table
from .base import CheckFailed, Trial, as_array, close_mask

KINDS = ("weights", "mask", "table")


def picture(t: Trial, title: str, kind: str, expected: Any, answer: Callable[[], Any], *,
            rows: str = "row", columns: str = "column") -> Picture:
    """``answer()`` (a call into the student's code, returning its value) drawn as ``kind``
    beside ``expected``; ``rows`` and ``columns`` say what the table's rows and columns stand
    for. A call that raised, or a value that is no 2-D table of numbers, gives a picture
    without the student's table that says why."""
    assert kind in KINDS, kind
    want = np.asarray(expected, dtype=np.float64)
    assert want.ndim == 2 and _fits(want.shape), "a picture is a 2-D table of a small example"

    def without(note: str) -> Picture:
        return Picture(title, kind, _table(want), None, (), note, rows, columns)

    try:
        got = as_array(answer(), title)
    except CheckFailed as failed:
        return without(failed.message)
    if got.dtype.kind not in "fiub":
        return without(f"{title} has dtype {got.dtype}, not numbers")
    if got.ndim != 2 or not _fits(got.shape):  # each side too: 10**7 rows of none are no entries
        return without(f"{title} has shape {tuple(got.shape)}, expected {tuple(want.shape)}")
    note = "" if got.shape == want.shape else f"shape {tuple(got.shape)}, expected {tuple(want.shape)}"
    wrong: tuple[tuple[int, int], ...] = ()
    if got.shape == want.shape:
        ok = (got.astype(bool) == want.astype(bool)) if kind == "mask" else close_mask(t, got, want)
        wrong = tuple((int(i), int(j)) for i, j in np.argwhere(~ok))
    return Picture(title, kind, _table(want), _table(got), wrong, note, rows, columns)


def _fits(shape: tuple[int, ...]) -> bool:
    """Whether a table of ``shape`` is small enough to draw: its rows, its columns and its
    entries each at most ``PICTURE_ENTRIES`` (a row costs a worker and the page as an entry does)."""
    return max(shape, default=0) <= PICTURE_ENTRIES and math.prod(shape) <= PICTURE_ENTRIES


def _table(values: np.ndarray) -> Table:
    """Rows of floats to 5 significant digits (enough to draw; ``wrong`` is found before
    rounding), ``None`` where the value is NaN or infinite (JSON has neither)."""
    floats = values.astype(np.float64)
    return tuple(tuple(float(f"{v:.5g}") if np.isfinite(v) else None for v in row) for row in floats.tolist())
