"""A picture is bounded by each side of the answer, not by its entries alone (#53): 10**7 rows
of no columns are no entries, and once became 2.2 GB of rows in the worker and the main process."""

from __future__ import annotations

import numpy as np
import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.checks.base import Trial
from grader.checks.pictures import picture
from grader.records.results import PICTURE_ENTRIES

A = load_bundle(DEFAULT_ASSIGNMENT).assignment
TRIAL = Trial(A.item("causal_mask"), "(public example)", 0, [0], runner=None)  # type: ignore[arg-type]
CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


@pytest.mark.parametrize("shape", [(10**7, 0), (0, 10**7), (PICTURE_ENTRIES + 1, 0), (PICTURE_ENTRIES + 1, 1)])
def test_an_answer_with_a_side_longer_than_a_picture_is_described_not_drawn(shape):
    p = picture(TRIAL, "causal_mask(4)", "mask", CAUSAL, lambda: np.zeros(shape, dtype=bool))
    assert p.student is None and p.wrong == ()
    assert p.note == f"causal_mask(4) has shape {shape}, expected (4, 4)"


def test_an_answer_as_large_as_a_picture_on_each_side_is_drawn():
    p = picture(TRIAL, "causal_mask(4)", "mask", CAUSAL, lambda: np.zeros((PICTURE_ENTRIES, 1), dtype=bool))
    assert p.student is not None and len(p.student) == PICTURE_ENTRIES
    assert picture(TRIAL, "causal_mask(4)", "mask", CAUSAL, lambda: np.zeros((PICTURE_ENTRIES, 0))).student is not None
