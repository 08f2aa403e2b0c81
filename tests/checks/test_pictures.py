"""Pictures of a public example: the student's table beside the expected one, as plain data."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.checks.base import CheckFailed, Trial
from grader.checks.pictures import picture
from grader.records.results import Picture

A = load_bundle(DEFAULT_ASSIGNMENT).assignment
TRIAL = Trial(A.item("causal_mask"), "(public example)", 0, [0], runner=None)  # type: ignore[arg-type]
CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


def shown(value: Any, kind: str = "mask", expected: Any = CAUSAL) -> Picture:
    return picture(TRIAL, "causal_mask(4)", kind, expected, lambda: value)


def test_a_mask_that_sees_the_future_is_marked_where_it_does():
    p = shown(np.tril(np.ones((4, 4), dtype=bool), k=1))
    assert p.wrong == ((0, 1), (1, 2), (2, 3))
    assert p.student is not None and p.student[0] == (1.0, 1.0, 0.0, 0.0) and p.note == ""
    assert shown(CAUSAL).wrong == ()


def test_weights_are_compared_with_the_items_tolerance():
    w = np.full((2, 3), 1 / 3)
    assert shown(w + 1e-12, "weights", w).wrong == ()
    assert shown(w + np.array([[0, 0, 1e-3], [0, 0, 0]]), "weights", w).wrong == ((0, 2),)


def test_no_usable_table_gives_a_picture_that_says_why():
    def raises() -> Any:
        raise CheckFailed("causal_mask(4) raised ValueError: no")

    p = picture(TRIAL, "causal_mask(4)", "mask", CAUSAL, raises)
    assert p.student is None and p.note == "causal_mask(4) raised ValueError: no" and p.expected[3] == (1.0,) * 4
    assert shown(np.ones(4)).note == "causal_mask(4) has shape (4,), expected (4, 4)"
    assert shown(np.ones((100, 100))).student is None  # larger than a picture
    assert shown("nope").student is None


def test_another_shape_is_drawn_but_not_compared():
    p = shown(np.ones((3, 5), dtype=bool))
    assert p.student is not None and len(p.student) == 3 and p.wrong == ()
    assert p.note == "shape (3, 5), expected (4, 4)"


def test_non_finite_entries_travel_as_null_and_the_picture_round_trips_through_json():
    p = shown(np.array([[np.nan, 0.5], [np.inf, 1 / 3]]), "weights", np.full((2, 2), 0.5))
    assert p.student == ((None, 0.5), (None, 0.33333))
    assert p.wrong == ((0, 0), (1, 0), (1, 1))
    assert Picture.from_json(json.loads(json.dumps(vars(p), allow_nan=False))) == p
