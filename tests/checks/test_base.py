import itertools

import numpy as np
import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.checks.base import CheckFailed, Trial, close_mask, discrepancy
from grader.checks.expect import expect_close

SPECIAL = [0.0, 1.0, -1.0, 1.0 + 1e-12, 1.0 + 1e-5, 1e-10, 1e300, np.inf, -np.inf, np.nan]


def _trial(item: str = "scaled_dot_product_attention") -> Trial:
    assignment = load_bundle(DEFAULT_ASSIGNMENT).assignment
    return Trial(assignment.item(item), "matches_definition", 0, [0], runner=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_close_mask_is_the_row_scaled_rule_on_special_values(dtype):
    """|a - e| <= atol * s + rtol * |e| with s = max(1, largest finite |e| of the row); NaN is
    never close, an infinity only to itself (numpy.isclose's conventions)."""
    trial = _trial()
    pairs = list(itertools.product(SPECIAL, repeat=2))
    with np.errstate(all="ignore"):
        actual = np.array([a for a, _ in pairs]).astype(dtype).reshape(10, 10)
    expected = np.array([e for _, e in pairs]).reshape(10, 10)
    tol = trial.tolerance(actual.dtype if actual.dtype.kind == "f" else np.float64)
    finite = np.where(np.isfinite(expected), np.abs(expected), 0.0)
    scale = np.maximum(finite.max(axis=-1, keepdims=True), 1.0)
    with np.errstate(all="ignore"):
        a = actual.astype(np.float64)
        wanted = (np.abs(a - expected) <= tol.atol * scale + tol.rtol * np.abs(expected)) & np.isfinite(expected)
        wanted |= a == expected
    assert close_mask(trial, actual, expected).tolist() == wanted.tolist()


def test_the_tolerance_follows_the_row_not_the_entry():
    trial = _trial()
    atol = trial.tolerance(np.float64).atol
    row = np.array([[1e-6, 0.5, 3.0], [1e-6, 0.2, 0.1]])
    # an error of half the tolerance at the scale 3 of the first row passes even on its 1e-6
    nudged = row + np.array([[1.5 * atol, 0, 0], [0, 0, 0]])
    assert close_mask(trial, nudged, row).all()
    # the second row has no entry above 1: its scale is 1
    nudged = row + np.array([[0, 0, 0], [1.5 * atol, 0, 0]])
    assert close_mask(trial, nudged, row).tolist() == [[True] * 3, [False, True, True]]


def test_a_float32_constant_in_a_float64_result_passes():
    """The TensorFlow tutorial's tf.cast(d_k, tf.float32): the scale is sqrt(d_k) rounded to
    float32, a relative error of about 1e-8 in every score, which the old float64 rule
    (rtol 1e-7, atol 1e-9 per entry) took for a wrong output."""
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(4, 8)), rng.normal(size=(6, 8)), rng.normal(size=(6, 5))

    def attention(sqrt_dk):
        scores = Q @ K.T / sqrt_dk
        w = np.exp(scores - scores.max(-1, keepdims=True))
        return (w / w.sum(-1, keepdims=True)) @ V

    exact, ported = attention(np.sqrt(8.0)), attention(np.sqrt(np.float32(8.0)))
    assert ported.dtype == np.float64
    assert not np.allclose(ported, exact, rtol=1e-7, atol=1e-9)
    assert close_mask(_trial(), ported, exact).all()


def test_discrepancy_names_the_worst_entry_by_its_tolerance():
    trial = _trial()
    atol = trial.tolerance(np.float64).atol
    expected = np.array([[0.1, 0.2], [5.0, 0.3]])
    actual = expected + np.array([[3 * atol, 0.0], [0.0, 4 * atol]])  # [1, 1] is allowed 5 * atol
    off = discrepancy(trial, actual, expected)
    assert off is not None
    assert (off.outside, off.size, off.index) == (1, 4, (0, 0))
    assert off.error == pytest.approx(3 * atol) and off.tolerance == pytest.approx(atol)
    assert off.margin == pytest.approx(3.0)
    assert off.sizes() == f"by up to {3 * atol:.1e} (tolerance {atol:.1e}) at [0, 0]"
    assert discrepancy(trial, expected, expected) is None


def test_a_comparison_that_passes_records_how_close_it_came():
    trial = _trial()
    atol = trial.tolerance(np.float64).atol
    expected = np.array([[0.1, 0.2], [5.0, 0.3]])
    assert trial.closest is None  # no comparison yet
    assert discrepancy(trial, expected + np.array([[0.5 * atol, 0.0], [0.0, atol]]), expected) is None
    assert trial.closest == pytest.approx(0.5)  # [1, 1] is allowed 5 * atol: a fifth of it
    assert discrepancy(trial, expected, expected) is None
    assert trial.closest == pytest.approx(0.5)  # the largest of the passed comparisons
    assert discrepancy(trial, expected + 3 * atol, expected) is not None
    assert trial.closest == pytest.approx(0.5)  # a failed one is a margin, not this


def test_expect_close_gives_the_size_and_the_margin_never_the_values():
    trial = _trial()
    expected = np.array([[0.123456, 0.654321], [0.5, 0.5]])
    actual = expected.copy()
    actual[1, 0] = 0.75
    with pytest.raises(CheckFailed) as info:
        expect_close(trial, actual, expected, "the weights", "the definition softmax(...)")
    message = info.value.message
    assert message == ("the weights differ from the definition softmax(...): by up to 2.5e-01 "
                       "(tolerance 2.0e-05) at [1, 0]; 1 of 4 entries are outside the tolerance")
    assert info.value.margin == pytest.approx(0.25 / 2e-5)
    actual[0, 1] = np.nan
    with pytest.raises(CheckFailed) as info:
        expect_close(trial, actual, expected, "the weights", "the definition")
    assert "the entry at [0, 1] is NaN; 2 of 4 entries" in info.value.message
    assert info.value.margin is None


def test_a_margin_too_large_to_write_is_none():
    """results.json is strict JSON: an error of 1e305 against 2e-5 has no finite margin."""
    trial = _trial()
    off = discrepancy(trial, np.array([1e305, 0.0]), np.array([0.0, 0.0]))
    assert off is not None and off.margin is None
    assert off.sizes() == f"by up to 1.0e+305 (tolerance {off.tolerance:.1e}) at [0]"


MODULE_SOURCE = """
import torch

class Window(torch.nn.Module):
    def __init__(self, size):
        if size < 1:
            raise ValueError("size must be positive")
        super().__init__()
        self.size = size
        self.scale = torch.nn.Parameter(torch.ones(1))

    def forward(self, x):
        if x.size(1) > self.size:
            raise ValueError("x is longer than the window")
        return x * self.scale
"""


def test_module_raises_names_an_error_of_building_or_of_calling_a_method():
    pytest.importorskip("torch")
    from grader.runners.inprocess import InProcessRunner
    from grader.submissions.load import Cell, SourceFile

    runner = InProcessRunner.from_source(SourceFile("nb", "nb.py", (Cell(1, MODULE_SOURCE),)))
    item = load_bundle(DEFAULT_ASSIGNMENT).assignment.items[0]
    t = Trial(item, "a check", 1, [1], runner)
    assert t.module_raises(0, name="Window").is_a("ValueError")
    assert t.module_raises(3, name="Window") is None
    short, long = np.zeros((1, 3, 2), np.float32), np.zeros((1, 4, 2), np.float32)
    state = {"scale": np.full(1, 2.0, np.float32)}
    assert t.module_raises(3, name="Window", state=state, method="forward", args=(short,)) is None
    raised = t.module_raises(3, name="Window", state=state, method="forward", args=(long,))
    assert raised is not None and raised.is_a("ValueError") and "longer than the window" in raised.message
    wrong_state = t.module_raises(3, name="Window", state={"bias": np.zeros(1)}, method="forward", args=(short,))
    assert wrong_state is not None and wrong_state.is_a("KeyError")
