"""The part-2 (PyTorch) checks against the catalogue: every mutant loses points on its own
item and nowhere else, every alternative and the reference keep full marks, and the
messages name the property that broke."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is not installed in this environment")

from bundle_support import BUNDLE_PATH  # noqa: E402

from grader.assignment.bundle import load_bundle  # noqa: E402
from grader.assignment.catalogue import load_catalogue  # noqa: E402
from grader.records.results import ItemResult  # noqa: E402

NOTEBOOK = "attention_torch"
TORCH_ITEMS = tuple(item.name for item in load_bundle(BUNDLE_PATH).assignment.items_of(NOTEBOOK))
ROOT = Path(__file__).resolve().parents[2]

# Collection needs the entries before any fixture exists; the assignment fixture (which also
# validates the check names) is used for grading.
ENTRIES = [e for e in load_catalogue(load_bundle(BUNDLE_PATH)) if e.notebook == NOTEBOOK]
MUTANTS = {e.name: e for e in ENTRIES if e.kind == "mutant"}
ALTERNATIVES = {e.name: e for e in ENTRIES if e.kind == "alternative"}

@pytest.fixture
def graded(assignment, grade):
    """``graded(entry_or_None, seed)``: the notebook's results (each computed once a session)."""
    return lambda entry, seed=1234: grade(assignment, NOTEBOOK, entry, seed=seed)


def failures(result: ItemResult) -> dict[str, str]:
    return {c.name: c.message for c in result.checks if not c.passed}


def summary(results: dict[str, ItemResult]) -> dict[str, object]:
    return {name: (r.earned, r.points, failures(r)) for name, r in results.items()}


def test_catalogue_covers_every_torch_item():
    for item in TORCH_ITEMS:
        assert any(e.item == item for e in MUTANTS.values()), f"no mutant of {item}"
        assert any(e.item == item for e in ALTERNATIVES.values()), f"no alternative of {item}"


@pytest.mark.parametrize("seed", [0, 1, 1234, 20240601])
def test_reference_gets_full_marks(graded, seed):
    results = graded(None, seed)
    assert set(results) == set(TORCH_ITEMS)
    assert all(r.earned == r.points for r in results.values()), summary(results)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_loses_points_on_its_item_only(graded, name):
    entry = MUTANTS[name]
    results = graded(entry)
    own = results[entry.item]
    assert own.earned < own.points, f"{name} ({entry.description}) keeps full marks on {entry.item}"
    for item, result in results.items():
        if item != entry.item:
            assert result.earned == result.points, (item, failures(result))
    for message in failures(own).values():
        assert message and "Traceback" not in message


@pytest.mark.parametrize("name", sorted(ALTERNATIVES))
def test_alternative_keeps_full_marks(graded, name):
    results = graded(ALTERNATIVES[name])
    assert all(r.earned == r.points for r in results.values()), summary(results)


@pytest.mark.parametrize("name", ["mha_einsum", "pe_module_textbook_float32", "bahdanau_module_bmm_neg_1e9"])
def test_alternatives_on_another_seed(graded, name):
    results = graded(ALTERNATIVES[name], 7)
    assert all(r.earned == r.points for r in results.values()), summary(results)


# ---- the messages name the property ------------------------------------------------------


def test_detached_bahdanau_keeps_its_forward_points(graded):
    """Detaching breaks only the gradients; the values are right."""
    failed = failures(graded(MUTANTS["bahdanau_module_detached"])["BahdanauAttention"])
    assert set(failed) == {"gradients_flow"}, failed


def test_frozen_parameter_is_named(assignment, grade):
    code = """
_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def __init__(self, d_model, num_heads):
        super().__init__(d_model, num_heads)
        self.W_o.weight.requires_grad_(False)
"""
    result = grade(assignment, NOTEBOOK, code=code)["MultiHeadAttention"]
    assert failures(result) == {"gradients_flow": failures(result)["gradients_flow"]}
    assert "W_o.weight" in failures(result)["gradients_flow"]
    assert "requires_grad=False" in failures(result)["gradients_flow"]


def test_zero_gradient_is_called_detached(assignment, grade):
    code = """
_Base = BahdanauAttention


class BahdanauAttention(_Base):
    def forward(self, query, keys, mask=None):
        context, weights = super().forward(query, keys, mask)
        zero = 0 * query.sum() + 0 * keys.sum()
        return context.detach() + zero, weights.detach() + zero
"""
    result = grade(assignment, NOTEBOOK, code=code)["BahdanauAttention"]
    message = failures(result)["gradients_flow"]
    assert "zero everywhere" in message and "detached" in message, message


def test_checks_import_without_torch():
    """The tox envs without torch load the bundle's checks: the torch modules' checks
    (``*_module``, ``torch_support``) must import torch lazily."""
    code = ("import sys; sys.modules['torch'] = None; from grader.assignment.bundle import load_bundle; "
            "from bundle_support import BUNDLE_PATH; checks = load_bundle(BUNDLE_PATH).checks; "
            "assert 'reference.attention_torch' not in sys.modules; "
            "assert 'PositionalEncoding' in checks.known()")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)

