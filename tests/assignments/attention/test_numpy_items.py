"""The part-1 (NumPy) checks against the catalogue and hand-written students.

Every mutant loses points on its own item and nowhere else, and fails the check named
for its mistake with a message that names the property; every alternative and the
reference keep full marks; no message quotes a reference value.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import load_catalogue
from grader.checks.reference_cache import _REFERENCE_CACHE
from grader.records.results import ItemResult

NOTEBOOK = "attention_numpy"
BUNDLE = load_bundle(BUNDLE_PATH)
CHECKS = BUNDLE.checks.known()
NUMPY_ITEMS = tuple(item.name for item in BUNDLE.assignment.items_of(NOTEBOOK))
SEEDS = (1234, 99)

# Mutants overflow and divide by zero on purpose; their warnings are not news.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# Collection needs the entries before any fixture exists; grading uses the `assignment`
# fixture, which also validates the check names.
ENTRIES = [e for e in load_catalogue(BUNDLE) if e.notebook == NOTEBOOK]
MUTANTS = {e.name: e for e in ENTRIES if e.kind == "mutant"}
ALTERNATIVES = {e.name: e for e in ENTRIES if e.kind == "alternative"}

# Mutants whose messages come from comparisons only: the only decimal numbers they may hold
# are the size of the error and the tolerance.
COMPARISON_ONLY = ("sdpa_no_scale", "bahdanau_no_tanh", "pe_2i_slip", "rsm_wrong_frequency",
                   "split_heads_no_transpose", "combine_heads_no_transpose")

_DECIMAL = re.compile(r"-?\d+\.\d+(?:e[+-]?\d+)?|-?\d+e[+-]?\d+")
_SIZES = re.compile(r"by up to \d\.\de[+-]\d\d \(tolerance \d\.\de[+-]\d\d\)")


@pytest.fixture
def graded(assignment, grade):
    """``graded(entry_or_None, seed)``: the notebook's results (each computed once a session)."""
    return lambda entry, seed=SEEDS[0]: grade(assignment, NOTEBOOK, entry, seed=seed)


def failures(result: ItemResult) -> dict[str, str]:
    return {c.name: c.message for c in result.checks if not c.passed}


def summary(results: dict[str, ItemResult]) -> dict[str, object]:
    return {name: (r.earned, r.points, failures(r)) for name, r in results.items()
            if r.earned != r.points}


def reference_numbers(seed: int, item: str, check: str) -> set[str]:
    """Every reference value the check computed, formatted as a message might print it."""
    values: list[float] = []

    def collect(value: object) -> None:
        if isinstance(value, (tuple, list)):
            for v in value:
                collect(v)
        elif isinstance(value, np.ndarray) and value.dtype.kind == "f":
            values.extend(value.reshape(-1).tolist())

    for key, value in _REFERENCE_CACHE.items():
        if (key.seed, key.item, key.check) == (seed, item, check):
            collect(value)
    out = set()
    for v in values:
        if np.isfinite(v) and v not in (0.0, 1.0, -1.0):
            out.update({f"{v:.4g}", f"{v:.5g}", f"{v:.6g}", f"{v:.8g}", repr(v), str(v)})
    return out


# ---- the catalogue ---------------------------------------------------------------------


def test_every_numpy_item_has_its_checks():
    assignment = BUNDLE.assignment
    assert NUMPY_ITEMS
    for item in NUMPY_ITEMS:
        assert assignment.item(item).notebook == NOTEBOOK
        assert set(CHECKS[item]) == {name for name, _ in assignment.item(item).checks}, item


def test_catalogue_covers_every_numpy_item():
    for item in NUMPY_ITEMS:
        assert any(e.item == item for e in MUTANTS.values()), f"no mutant of {item}"


@pytest.mark.parametrize("seed", [0, 1, 7, 1234, 20240601])
def test_reference_gets_full_marks(graded, seed):
    results = graded(None, seed)
    assert set(results) == set(NUMPY_ITEMS)
    assert summary(results) == {}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_loses_points_on_its_item_only(graded, name, seed):
    entry = MUTANTS[name]
    results = graded(entry, seed)
    own = results[entry.item]
    assert own.earned < own.points, f"{name} keeps full marks on {entry.item}"
    others = {k: v for k, v in summary(results).items() if k != entry.item}
    assert others == {}, f"{name} loses points outside {entry.item}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(ALTERNATIVES))
def test_alternative_keeps_full_marks(graded, name, seed):
    if "import torch" in ALTERNATIVES[name].code:
        pytest.importorskip("torch")
    assert summary(graded(ALTERNATIVES[name], seed)) == {}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_messages_quote_no_reference_value(graded, name):
    entry = MUTANTS[name]
    seed = SEEDS[0]
    for check, message in failures(graded(entry, seed)[entry.item]).items():
        assert len(message) > 20, (check, message)
        printed = set(_DECIMAL.findall(message))
        leaked = printed & reference_numbers(seed, entry.item, check)
        assert not leaked, f"{check}: {message!r} quotes reference values {leaked}"


@pytest.mark.parametrize("name", COMPARISON_ONLY)
def test_comparison_messages_hold_no_decimal_numbers(graded, name):
    entry = MUTANTS[name]
    failed = failures(graded(entry)[entry.item])
    assert failed
    for check, message in failed.items():
        assert _SIZES.search(message), f"{check}: {message!r} gives no size against the tolerance"
        assert not _DECIMAL.search(_SIZES.sub("", message)), f"{check}: {message!r}"


def test_reference_cache_is_not_confused_by_failing_students(assignment, grade):
    # A student who fails early skips later reference calls; the next student on the same
    # seed must still get the reference values of its own inputs.
    seed = 424242
    for entry in (MUTANTS["sdpa_k_dot_t"], MUTANTS["softmax_no_max_shift"], None):
        results = grade(assignment, NOTEBOOK, entry, seed=seed)
    assert summary(results) == {}


def test_a_notebook_grades_quickly(assignment, grade):
    grade(assignment, NOTEBOOK, seed=5)  # warm up imports
    started = time.perf_counter()
    results = grade(assignment, NOTEBOOK, seed=6)
    assert summary(results) == {}
    assert time.perf_counter() - started < 3.0


# ---- hand-written students -------------------------------------------------------------


def grade_code(assignment, grade, code: str, item: str) -> dict[str, str]:
    results = grade(assignment, NOTEBOOK, code=code, seed=31)
    others = {k: v for k, v in summary(results).items() if k != item}
    assert others == {}
    return failures(results[item])


def test_softmax_returning_a_list_loses_only_the_type_check(assignment, grade):
    code = '''
_ref_softmax = softmax
def softmax(x, axis=-1):
    return _ref_softmax(x, axis).tolist()
'''
    failed = grade_code(assignment, grade, code, "softmax")
    assert set(failed) == {"returns_array_of_input_shape"}
    assert "is a list; return a numpy.ndarray" in failed["returns_array_of_input_shape"]


def test_softmax_returning_a_tensor_loses_only_the_type_check(assignment, grade):
    pytest.importorskip("torch")
    code = '''
import torch
def softmax(x, axis=-1):
    return torch.softmax(torch.as_tensor(x), dim=axis)
'''
    failed = grade_code(assignment, grade, code, "softmax")
    assert set(failed) == {"returns_array_of_input_shape"}
    assert "torch.Tensor; return a plain numpy.ndarray" in failed["returns_array_of_input_shape"]


def test_softmax_that_raises_fails_every_check(assignment, grade):
    code = '''
def softmax(x, axis=-1):
    raise RuntimeError("not done yet")
'''
    failed = grade_code(assignment, grade, code, "softmax")
    assert set(failed) == set(CHECKS["softmax"])
    assert all("raised RuntimeError: not done yet" in m for m in failed.values())


def test_softmax_returning_nan_fails_without_crashing(assignment, grade):
    code = '''
import numpy as np
def softmax(x, axis=-1):
    return np.full(np.shape(x), np.nan)
'''
    failed = grade_code(assignment, grade, code, "softmax")
    assert set(failed) == set(CHECKS["softmax"]) - {"returns_array_of_input_shape"}
    assert "sums to nan" in failed["rows_sum_to_one"]
    assert "is nan although x there is -inf" in failed["neg_inf_gets_zero_weight"]


def test_softmax_that_writes_to_its_input_is_fine(assignment, grade):
    code = '''
import numpy as np
def softmax(x, axis=-1):
    x -= np.max(x, axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= np.sum(x, axis=axis, keepdims=True)
    return x
'''
    assert grade_code(assignment, grade, code, "softmax") == {}


def test_missing_function_fails_its_item(assignment, grade):
    failed = grade_code(assignment, grade, "del causal_mask", "causal_mask")
    assert set(failed) == set(CHECKS["causal_mask"])
    assert all("causal_mask is not defined" in m for m in failed.values())


def test_padding_mask_returning_nested_lists(assignment, grade):
    code = '''
def padding_mask(lengths, max_len):
    return [[j < n for j in range(max_len)] for n in lengths]
'''
    failed = grade_code(assignment, grade, code, "padding_mask")
    assert set(failed) == {"bool_batch_by_max_len"}
    assert "is a list" in failed["bool_batch_by_max_len"]


def test_attention_returning_one_array_is_told_to_return_a_pair(assignment, grade):
    code = '''
_ref_sdpa = scaled_dot_product_attention
def scaled_dot_product_attention(Q, K, V, mask=None):
    return _ref_sdpa(Q, K, V, mask)[0]
'''
    failed = grade_code(assignment, grade, code, "scaled_dot_product_attention")
    assert set(failed) == set(CHECKS["scaled_dot_product_attention"])
    assert all("should return a pair" in m for m in failed.values())


def test_split_heads_raising_the_wrong_error(assignment, grade):
    code = '''
_ref_split = split_heads
def split_heads(x, num_heads):
    if x.shape[-1] % num_heads:
        raise TypeError("bad head count")
    return _ref_split(x, num_heads)
'''
    failed = grade_code(assignment, grade, code, "split_heads")
    assert set(failed) == {"rejects_indivisible_d_model"}
    assert "raised TypeError: bad head count; it must raise ValueError" in failed[
        "rejects_indivisible_d_model"]


def test_relative_shift_returning_a_tensor(assignment, grade):
    pytest.importorskip("torch")
    code = '''
import torch
_ref_shift = relative_shift_matrix
def relative_shift_matrix(k, d_model):
    return torch.from_numpy(_ref_shift(k, d_model)).float()
'''
    failed = grade_code(assignment, grade, code, "relative_shift_matrix")
    assert set(failed) == {"output_shape"}
    assert "torch.Tensor" in failed["output_shape"]


def test_masks_as_int_arrays_lose_only_the_dtype_check(assignment, grade):
    code = '''
import numpy as np
def padding_mask(lengths, max_len):
    return (np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]).astype(int)
'''
    failed = grade_code(assignment, grade, code, "padding_mask")
    assert set(failed) == {"bool_batch_by_max_len"}
    assert "expected bool" in failed["bool_batch_by_max_len"]


def test_attention_with_batch_only_support_loses_the_2d_checks(assignment, grade):
    # A student who unpacks `B, L, d = Q.shape` works only for exactly one batch axis.
    code = '''
import numpy as np
def scaled_dot_product_attention(Q, K, V, mask=None):
    B, Lq, d = Q.shape
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    return w @ V, w
'''
    failed = grade_code(assignment, grade, code, "scaled_dot_product_attention")
    assert "leading_batch_dims" in failed and "masked_weights_are_zero" in failed
    assert all("raised ValueError" in m for m in failed.values())
