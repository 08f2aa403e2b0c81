"""The llm_attention bundle's part-1 (NumPy) checks against its reference and catalogue, in
process: the reference keeps every point whatever the seed, every alternative too, and every
mutant loses points on its own item alone, on the checks its header names, with a message
that names the property."""

from __future__ import annotations

import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import load_catalogue
from reference import llm_numpy as ref

ROOT = Path(__file__).resolve().parents[3]
BUNDLE = load_bundle(ROOT / "assignments" / "llm_attention")
NOTEBOOK = "llm_numpy"
ENTRIES = [e for e in load_catalogue(BUNDLE) if e.notebook == NOTEBOOK]
MUTANTS = {e.name: e for e in ENTRIES if e.kind == "mutant"}
ALTERNATIVES = {e.name: e for e in ENTRIES if e.kind == "alternative"}

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def lost(results):
    return {name: r.earned for name, r in results.items() if r.earned != r.points}


@pytest.mark.parametrize("seed", [0, 7, 1234, 2026])
def test_the_reference_keeps_every_point_whatever_the_seed(grade, seed):
    assert lost(grade(BUNDLE, NOTEBOOK, None, seed=seed)) == {}


@pytest.mark.parametrize("name", sorted(ALTERNATIVES))
def test_every_alternative_keeps_every_point(grade, name):
    assert lost(grade(BUNDLE, NOTEBOOK, ALTERNATIVES[name], seed=3)) == {}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_every_mutant_loses_on_its_own_item_alone(grade, name):
    entry = MUTANTS[name]
    results = grade(BUNDLE, NOTEBOOK, entry, seed=3)
    assert set(lost(results)) == {entry.item}
    failed = {c.name for c in results[entry.item].checks if not c.passed}
    assert set(entry.loses) <= failed


def test_each_item_has_at_least_four_classic_mistakes():
    for item in BUNDLE.assignment.items_of(NOTEBOOK):
        assert len([m for m in MUTANTS.values() if m.item == item.name]) >= 4, item.name


@pytest.mark.parametrize("name, check, phrases", [
    ("rope_rotate_half_hf_llama", "rotates_adjacent_pairs", ["outside its pair", "rotate-half"]),
    ("rope_positions_from_one", "position_zero_unchanged", ["positions start at 0"]),
    ("alibi_positive_bias", "falls_by_slope_per_step", ["does not fall with the distance"]),
    ("alibi_next_power_of_two", "slopes_follow_the_paper", ["not a power of two", "tolerance"]),
    ("alibi_future_zero", "future_gets_zero_weight", ["future key", "weight"]),
    ("window_mistral_src", "keys_per_row", ["(4 of them)", "itself and the 3 - 1 keys before it"]),
    ("window_not_causal", "causal", ["comes after it"]),
    ("blockwise_nan_masked_first_block", "masked_first_block_changes_nothing", ["NaN"]),
    ("blockwise_softmax_per_block", "same_for_every_block_size", ["block_size=12 (one block)"]),
    ("blockwise_whole_matrix", "never_holds_the_score_matrix", ["MiB at its peak", "16 MiB", "(Lq, Lk)"]),
])
def test_the_failure_names_the_property_and_the_size(grade, name, check, phrases):
    entry = MUTANTS[name]
    message = {c.name: c.message for c in grade(BUNDLE, NOTEBOOK, entry, seed=3)[entry.item].checks}[check]
    for phrase in phrases:
        assert phrase in message, (phrase, message)


def test_the_memory_check_passes_no_mask_and_leaves_room_for_blocks():
    from importlib import import_module

    checks = import_module(BUNDLE.checks.get("blockwise_attention", "never_holds_the_score_matrix").__module__)
    whole = checks.MEMORY_LQ * checks.MEMORY_LK * 8
    # Half the whole matrix: the whole one, read low by the ballast's slack (half the budget), is still past it.
    assert checks.MEMORY_BUDGET == whole // 2 and whole - checks.MEMORY_BUDGET // 2 > checks.MEMORY_BUDGET
    assert checks.MEMORY_LK // checks.MEMORY_BLOCK >= 2
    block = checks.MEMORY_LQ * checks.MEMORY_BLOCK * 8
    assert 8 * block <= checks.MEMORY_BUDGET  # a block's scores, weights and temporaries fit many times


def solutions() -> dict:
    namespace = {"np": np, "math": math}
    nb = nbformat.read(BUNDLE.root / f"{NOTEBOOK}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            exec(compile(cell.source, NOTEBOOK, "exec"), namespace)
    return namespace


def test_the_notebooks_solutions_are_the_reference():
    nb = solutions()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 8))
    positions = np.array([0, 3, 9, 2, 40])
    np.testing.assert_array_equal(nb["apply_rotary"](x, positions, 500.0), ref.apply_rotary(x, positions, 500.0))
    for heads in (1, 3, 8, 12):
        np.testing.assert_array_equal(nb["alibi_bias"](heads, 6), ref.alibi_bias(heads, 6))
    np.testing.assert_array_equal(nb["sliding_window_mask"](7, 3), ref.sliding_window_mask(7, 3))
    Q, K, V = rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 11, 6)), rng.normal(size=(2, 11, 3))
    mask = np.arange(11) >= 4
    np.testing.assert_array_equal(nb["blockwise_attention"](Q, K, V, 4, mask=mask),
                                  ref.blockwise_attention(Q, K, V, 4, mask=mask))
    for call in (lambda f: f["apply_rotary"](np.zeros((2, 3))), lambda f: f["alibi_bias"](0, 2),
                 lambda f: f["sliding_window_mask"](3, 0), lambda f: f["blockwise_attention"](Q, K, V, 0)):
        for impl in (nb, vars(ref)):
            with pytest.raises(ValueError):
                call(impl)
