"""``sliding_window_mask`` (part 1): each query sees itself and the ``window - 1`` keys before it.

Every property here needs no reference, so every check is public: the shape and dtype,
causality, exactly the keys ``i - window < j <= i`` in each row, a window longer than the
sequence, and the ``ValueError``. A message names the row and its keys, the student's own.
"""

from __future__ import annotations

import numpy as np

from grader.checks.arrays import as_mask
from grader.checks.base import Args, CheckFailed, Trial
from grader.checks.expect import expect_bool, expect_output, expect_raises

from . import check

WINDOW = "sliding_window_mask"


def _window_expected(length: int, window: int) -> np.ndarray:
    # The contract's i - window < j <= i, written by the distance back from the query.
    back = np.arange(length)[:, None] - np.arange(length)[None, :]
    return (back >= 0) & (back < window)


def _window_rows(mask: np.ndarray, what: str, length: int, window: int) -> None:
    """Fails on the first row whose keys are not exactly i - window < j <= i."""
    expected = _window_expected(length, window)
    for i in range(length):
        if (mask[i] != expected[i]).any():
            keys = np.flatnonzero(mask[i])
            seen = f"keys {keys[0]} .. {keys[-1]} ({len(keys)} of them)" if len(keys) else "no key"
            raise CheckFailed(f"row {i} of {what} allows {seen}; it must allow exactly keys {max(0, i - window + 1)} "
                              f".. {i}: itself and the {window} - 1 keys before it, min(i + 1, window) = "
                              f"{min(i + 1, window)} keys")


@check(WINDOW, "bool_square_shape")
def window_shape(t: Trial) -> None:
    cases = [(5, 2), (1, 1), (8, 3), (4, 9)]
    for (length, window), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        expect_output(reply, f"sliding_window_mask({length}, {window})", (length, length), expect_bool)


@check(WINDOW, "causal")
def window_causal(t: Trial) -> None:
    cases = [(6, 3), (10, 4), (5, 1), (7, 7)]
    for (length, window), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        what = f"sliding_window_mask({length}, {window})"
        mask = as_mask(reply, what, (length, length))
        future = np.triu(mask, k=1)
        if future.any():
            i, j = (int(v) for v in np.argwhere(future)[0])
            raise CheckFailed(f"{what}[{i}, {j}] is True: query {i} may attend key {j}, which comes after it; "
                              "the window is causal (j <= i)")


@check(WINDOW, "keys_per_row")
def window_keys(t: Trial) -> None:
    cases = [(9, 3), (12, 5), (6, 1), (10, 2)]
    for (length, window), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        what = f"sliding_window_mask({length}, {window})"
        _window_rows(as_mask(reply, what, (length, length)), what, length, window)


@check(WINDOW, "window_past_the_sequence")
def window_long(t: Trial) -> None:
    cases = [(4, 9), (5, 5), (3, 100)]
    for (length, window), reply in zip(cases, t.call_each([Args(*c) for c in cases]), strict=True):
        what = f"sliding_window_mask({length}, {window})"
        _window_rows(as_mask(reply, what, (length, length)), what, length, window)


@check(WINDOW, "rejects_window_below_one")
def window_rejects(t: Trial) -> None:
    cases = [(5, 0), (3, -1), (1, -4)]
    for (length, window), error in zip(cases, t.raised_each([Args(*c) for c in cases]), strict=True):
        what = f"sliding_window_mask({length}, {window})"
        expect_raises(error, "ValueError",
                      returned=f"{what} returned a result; it must raise ValueError (a window holds at least the "
                               "query itself)",
                      other=f"{what} raised {{raised}}; it must raise ValueError when window < 1")
