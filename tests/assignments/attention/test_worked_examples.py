"""The worked examples' data is what the reference computes on the same inputs, and the
examples catch the slips they are there for."""

from __future__ import annotations

import sys
from types import ModuleType

import numpy as np
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import load_catalogue
from reference import attention_numpy as ref

BUNDLE = load_bundle(BUNDLE_PATH)


def module_of(item: str, check: str) -> ModuleType:
    """The module of the bundle's checks that holds ``item.check`` (the bundle's checks are
    imported under a name of their own: find the module by the check's function)."""
    return sys.modules[BUNDLE.checks.get(item, check).__module__]


def test_the_data_is_the_references():
    sdpa = module_of("scaled_dot_product_attention", "worked_example")
    X = np.array(sdpa.SDPA_X)
    np.testing.assert_allclose(ref.scaled_dot_product_attention(X, X, X)[1], sdpa.SDPA_WEIGHTS, rtol=1e-15)
    causal = ref.scaled_dot_product_attention(X, X, X, mask=np.tri(3, dtype=bool))[1]
    np.testing.assert_allclose(causal, sdpa.SDPA_CAUSAL_WEIGHTS, rtol=1e-15)
    np.testing.assert_allclose(ref.softmax(X @ X.T), sdpa.SDPA_UNSCALED_WEIGHTS, rtol=1e-15)
    pe_row = module_of("positional_encoding", "worked_example").PE_ROW_7
    np.testing.assert_allclose(ref.positional_encoding(50, 16)[7], pe_row, rtol=1e-15)
    shift = module_of("relative_shift_matrix", "worked_example")
    pe = ref.positional_encoding(20, shift.SHIFT_D_MODEL)
    for p, row in shift.SHIFT_PE_ROWS.items():
        np.testing.assert_allclose(pe[p], row, rtol=1e-15, atol=1e-15)
    examples = module_of("luong_attention", "dot_worked_example")
    luong = [np.array(a) for a in (examples.LUONG_QUERY, examples.LUONG_KEYS, examples.LUONG_VALUES)]
    W, W_c, v = np.array(examples.LUONG_W), np.array(examples.LUONG_W_C), np.array(examples.LUONG_V)
    for method, weights in examples.LUONG_WEIGHTS.items():
        np.testing.assert_allclose(ref.luong_attention(*luong, method, W=W, W_c=W_c, v=v)[1], weights, rtol=1e-15)
    d = W.shape[0]
    slips = {"general": ref.luong_attention(*luong, "general", W=W.T)[1],
             "concat": ref.luong_attention(*luong, "concat", W_c=np.concatenate([W_c[d:], W_c[:d]]), v=v)[1]}
    for method, weights in slips.items():
        np.testing.assert_allclose(weights, examples.LUONG_SLIP_WEIGHTS[method][0], rtol=1e-15)


def test_the_classic_slips_fail_their_worked_example(grade):
    mutants = {e.name: e for e in load_catalogue(BUNDLE, ("mutant",))}
    for name, item, phrase in [("sdpa_no_scale", "scaled_dot_product_attention", "scale is missing"),
                               ("pe_2i_slip", "positional_encoding", "i counting the pairs"),
                               ("rsm_wrong_frequency", "relative_shift_matrix", "rotation property"),
                               ("luong_general_W_on_keys", "luong_attention", "W applied to the keys"),
                               ("luong_concat_keys_first", "luong_attention", "query comes first"),
                               # -inf where the mask allows: NaN, explained, not "the entry is NaN"
                               ("sdpa_inverted_mask_inf", "scaled_dot_product_attention",
                                "NaN in row 2, a row where every key is masked")]:
        result = grade(BUNDLE, "attention_numpy", mutants[name])[item]
        example = next(c for c in result.checks if c.name.endswith("worked_example") and not c.passed)
        assert not example.passed, name
        assert phrase in example.message, (name, example.message)
    reference = grade(BUNDLE, "attention_numpy")
    assert all(c.passed for r in reference.values() for c in r.checks)
