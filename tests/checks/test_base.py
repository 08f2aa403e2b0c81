import itertools

import numpy as np
import pytest

from grader.bundle import load_bundle
from grader.checks.base import Trial, close_mask
from grader.config import DEFAULT_ASSIGNMENT

SPECIAL = [0.0, 1.0, -1.0, 1.0 + 1e-12, 1.0 + 1e-5, 1e-10, 1e300, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_close_mask_follows_isclose_on_special_values(dtype):
    assignment = load_bundle(DEFAULT_ASSIGNMENT).assignment
    trial = Trial(assignment.item("softmax"), "matches_definition", 0, [0], runner=None)  # type: ignore[arg-type]
    pairs = list(itertools.product(SPECIAL, repeat=2))
    with np.errstate(all="ignore"):
        actual = np.array([a for a, _ in pairs]).astype(dtype)
    expected = np.array([e for _, e in pairs])
    tol = trial.tolerance(actual.dtype if actual.dtype.kind == "f" else np.float64)
    with np.errstate(all="ignore"):
        wanted = np.isclose(actual.astype(np.float64), expected, rtol=tol.rtol, atol=tol.atol)
    assert close_mask(trial, actual, expected).tolist() == wanted.tolist()
