"""Proves reference.attention_numpy (part 1) against independent oracles.

The oracles here are written with explicit Python loops and ``math`` (never with the
reference's own functions), hard-coded values, and mathematical identities (invariances,
the rotation property). The comparisons against PyTorch live in test_reference_torch.py,
so that this module also runs where torch is not installed.
"""

import ast
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from reference import attention_numpy as an

BUNDLE = load_bundle(BUNDLE_PATH)
RTOL = 1e-10
ATOL = 1e-12

# The graded names, from the bundle's YAML (a new item is covered by the tests of the reference's
# design below without editing them; its smoke call, when it has one, is added to _smoke).
GRADED = [item.name for item in BUNDLE.assignment.items_of("attention_numpy")]


def rng(seed=0):
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------- oracles


def softmax_oracle_1d(values):
    """Softmax of a Python list with math.exp (for inputs of moderate magnitude)."""
    finite = [v for v in values if v != -math.inf]
    top = max(finite)
    exps = [0.0 if v == -math.inf else math.exp(v - top) for v in values]
    total = math.fsum(exps)
    return [e / total for e in exps]


def softmax_oracle(x, axis=-1):
    """Applies softmax_oracle_1d to every 1-D slice along ``axis``."""
    moved = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    out = np.empty_like(moved)
    for index in np.ndindex(moved.shape[:-1]):
        out[index] = softmax_oracle_1d(moved[index].tolist())
    return np.moveaxis(out, -1, axis)


def sdpa_oracle(Q, K, V, mask=None):
    """Scaled dot-product attention, one query and one key at a time."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Lq, d_k = Q.shape[-2:]
    Lk, d_v = V.shape[-2:]
    if mask is None:
        mask = np.ones((Lq, Lk), dtype=bool)
    mask = np.broadcast_to(mask, lead + (Lq, Lk))
    Qb = np.broadcast_to(Q, lead + Q.shape[-2:])
    Kb = np.broadcast_to(K, lead + K.shape[-2:])
    Vb = np.broadcast_to(V, lead + V.shape[-2:])
    out = np.zeros(lead + (Lq, d_v))
    weights = np.zeros(lead + (Lq, Lk))
    for index in np.ndindex(lead):
        for i in range(Lq):
            scores = []
            for j in range(Lk):
                if mask[index][i, j]:
                    dot = math.fsum(Qb[index][i, t] * Kb[index][j, t] for t in range(d_k))
                    scores.append(dot / math.sqrt(d_k))
                else:
                    scores.append(-math.inf)
            row = softmax_oracle_1d(scores)
            weights[index][i] = row
            for c in range(d_v):
                out[index][i, c] = math.fsum(row[j] * Vb[index][j, c] for j in range(Lk))
    return out, weights


def bahdanau_oracle(query, keys, W_q, W_k, v, mask=None):
    """Bahdanau attention with explicit loops over batch, keys and attention units."""
    B, Lk, d_k = keys.shape
    d_a = v.shape[0]
    context = np.zeros((B, d_k))
    weights = np.zeros((B, Lk))
    for b in range(B):
        scores = []
        for j in range(Lk):
            if mask is not None and not mask[b, j]:
                scores.append(-math.inf)
                continue
            e = 0.0
            for a in range(d_a):
                pre = math.fsum(query[b, t] * W_q[t, a] for t in range(query.shape[1]))
                pre += math.fsum(keys[b, j, t] * W_k[t, a] for t in range(d_k))
                e += v[a] * math.tanh(pre)
            scores.append(e)
        weights[b] = softmax_oracle_1d(scores)
        for c in range(d_k):
            context[b, c] = math.fsum(weights[b, j] * keys[b, j, c] for j in range(Lk))
    return context, weights


def pe_oracle(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    for p in range(max_len):
        for i in range(d_model // 2):
            angle = p / 10000 ** (2 * i / d_model)
            pe[p, 2 * i] = math.sin(angle)
            pe[p, 2 * i + 1] = math.cos(angle)
    return pe


def random_mask(shape, seed):
    """Random bool mask with at least one True per row (all-masked rows are never tested)."""
    r = rng(seed)
    mask = r.random(shape) < 0.6
    rows = mask.reshape(-1, shape[-1])
    keep = r.integers(0, shape[-1], size=rows.shape[0])
    rows[np.arange(rows.shape[0]), keep] = True
    return rows.reshape(shape)


# --------------------------------------------------------------------------- softmax


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 6)])
def test_softmax_matches_definition(shape):
    x = rng(1).normal(size=shape) * 3
    out = an.softmax(x)
    assert isinstance(out, np.ndarray)
    assert out.shape == x.shape
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, softmax_oracle(x), rtol=RTOL, atol=ATOL)


def test_softmax_rows_sum_to_one_and_are_positive():
    x = rng(2).normal(size=(6, 9)) * 5
    out = an.softmax(x)
    np.testing.assert_allclose(out.sum(axis=-1), np.ones(6), rtol=0, atol=1e-12)
    assert np.all(out > 0)


def test_softmax_invariant_to_constant_added_per_row():
    x = rng(3).normal(size=(4, 7))
    shift = rng(4).normal(size=(4, 1)) * 50
    np.testing.assert_allclose(an.softmax(x + shift), an.softmax(x), rtol=1e-9, atol=1e-12)


def test_softmax_is_permutation_equivariant():
    x = rng(5).normal(size=(3, 8))
    perm = rng(6).permutation(8)
    np.testing.assert_allclose(an.softmax(x[:, perm]), an.softmax(x)[:, perm], rtol=RTOL,
                               atol=ATOL)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_softmax_honours_axis(axis):
    x = rng(7).normal(size=(3, 4, 5))
    out = an.softmax(x, axis=axis)
    np.testing.assert_allclose(out, softmax_oracle(x, axis=axis), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(out.sum(axis=axis), 1.0, rtol=0, atol=1e-12)


def test_softmax_default_axis_is_last():
    x = rng(8).normal(size=(4, 4))
    np.testing.assert_allclose(an.softmax(x), softmax_oracle(x, axis=1), rtol=RTOL, atol=ATOL)
    assert not np.allclose(an.softmax(x), softmax_oracle(x, axis=0))


def test_softmax_stable_for_large_inputs():
    x = np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -1002.0], [1000.0, -1000.0, 0.0]])
    with np.errstate(over="raise", invalid="raise"):  # overflow or NaN would raise
        out = an.softmax(x)
    assert np.all(np.isfinite(out))
    expected = softmax_oracle_1d([0.0, -1.0, -2.0])
    np.testing.assert_allclose(out[0], expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(out[1], expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(out[2], [1.0, 0.0, math.exp(-1000.0)], rtol=RTOL, atol=ATOL)


def test_softmax_random_inputs_of_magnitude_1e3():
    x = rng(9).uniform(-1e3, 1e3, size=(20, 30))
    out = an.softmax(x)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    # The largest entry of each row gets the largest weight.
    assert np.array_equal(out.argmax(axis=-1), x.argmax(axis=-1))


def test_softmax_rows_far_below_others_are_normalised_on_their_own():
    # A global (not per-row) maximum would underflow the second row to 0/0.
    x = np.array([[0.0, 1.0], [-2000.0, -1999.0]])
    out = an.softmax(x)
    expected = softmax_oracle_1d([0.0, 1.0])
    np.testing.assert_allclose(out, [expected, expected], rtol=RTOL, atol=ATOL)


def test_softmax_neg_inf_gets_exactly_zero_weight():
    x = np.array([[1.0, -np.inf, 2.0, -np.inf], [-np.inf, 0.5, 0.5, 0.5]])
    out = an.softmax(x)
    assert out[0, 1] == 0.0 and out[0, 3] == 0.0 and out[1, 0] == 0.0
    np.testing.assert_allclose(out[0, [0, 2]], softmax_oracle_1d([1.0, 2.0]), rtol=RTOL)
    np.testing.assert_allclose(out[1, 1:], [1 / 3] * 3, rtol=RTOL)


# --------------------------------------------------------------------------- masks


def causal_oracle(n):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            mask[i, j] = j <= i
    return mask


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_causal_mask_pattern(n):
    mask = an.causal_mask(n)
    assert isinstance(mask, np.ndarray)
    assert mask.dtype == np.bool_
    assert mask.shape == (n, n)
    assert np.array_equal(mask, np.tril(np.ones((n, n), dtype=bool)))
    assert np.array_equal(mask, causal_oracle(n))


def test_causal_mask_blocks_future_and_allows_past_and_self():
    mask = an.causal_mask(6)
    assert mask[3, 3] and mask[3, 0] and mask[5, 4]
    assert not mask[0, 1] and not mask[2, 5] and not mask[4, 5]


def padding_oracle(lengths, max_len):
    mask = np.zeros((len(lengths), max_len), dtype=bool)
    for b, length in enumerate(lengths):
        for j in range(max_len):
            mask[b, j] = j < length
    return mask


@pytest.mark.parametrize(
    "lengths",
    [[3, 1, 5], (5,), np.array([2, 4, 1, 5]), np.array([1, 1], dtype=np.int32)],
    ids=["list", "tuple", "int64-array", "int32-array"],
)
def test_padding_mask_pattern(lengths):
    max_len = 5
    mask = an.padding_mask(lengths, max_len)
    assert isinstance(mask, np.ndarray)
    assert mask.dtype == np.bool_
    assert mask.shape == (len(lengths), max_len)
    assert np.array_equal(mask, padding_oracle(list(lengths), max_len))


def test_padding_mask_list_and_array_agree():
    lengths = [4, 2, 7, 1]
    assert np.array_equal(an.padding_mask(lengths, 7), an.padding_mask(np.array(lengths), 7))
    assert an.padding_mask(lengths, 7).sum() == sum(lengths)


# --------------------------------------------------------------------------- scaled dot-product


SDPA_CASES = {
    # name: (Q shape, K shape, V shape, mask shape or "causal" or None)
    "no-batch": ((4, 3), (4, 3), (4, 2), None),
    "no-batch-lq!=lk": ((3, 5), (6, 5), (6, 4), None),
    "batched": ((2, 5, 4), (2, 6, 4), (2, 6, 3), None),
    "two-leading-dims": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), None),
    "mask-lq-lk-broadcast": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), (4, 5)),
    "mask-padding-b11lk": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), (2, 1, 1, 5)),
    "mask-full": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), (2, 3, 4, 5)),
    "causal-3-leading": ((2, 2, 2, 5, 4), (2, 2, 2, 5, 4), (2, 2, 2, 5, 3), "causal"),
}


def make_sdpa_case(name, seed=10):
    q_shape, k_shape, v_shape, mask_shape = SDPA_CASES[name]
    r = rng(seed)
    Q, K, V = (r.normal(size=s) for s in (q_shape, k_shape, v_shape))
    if mask_shape is None:
        mask = None
    elif mask_shape == "causal":
        mask = np.tril(np.ones((q_shape[-2], k_shape[-2]), dtype=bool))
    else:
        mask = random_mask(mask_shape, seed + 1)
    return Q, K, V, mask


@pytest.mark.parametrize("name", list(SDPA_CASES))
def test_sdpa_matches_loop_oracle(name):
    Q, K, V, mask = make_sdpa_case(name)
    out, weights = an.scaled_dot_product_attention(Q, K, V, mask)
    expected_out, expected_w = sdpa_oracle(Q, K, V, mask)
    assert isinstance(out, np.ndarray) and isinstance(weights, np.ndarray)
    assert out.shape == expected_out.shape
    assert weights.shape == expected_w.shape
    np.testing.assert_allclose(weights, expected_w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out, expected_out, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    if mask is not None:
        blocked = ~np.broadcast_to(mask, weights.shape)
        assert np.all(weights[blocked] == 0.0)


def test_sdpa_mask_none_is_default():
    Q, K, V, _ = make_sdpa_case("batched")
    out_default, w_default = an.scaled_dot_product_attention(Q, K, V)
    out_none, w_none = an.scaled_dot_product_attention(Q, K, V, mask=None)
    np.testing.assert_array_equal(out_default, out_none)
    np.testing.assert_array_equal(w_default, w_none)


def test_sdpa_is_scaled_by_sqrt_dk():
    # d_k = 4, so scores are q.k / 2: [2/2, 0/2] = [1, 0].
    Q = np.array([[2.0, 0.0, 0.0, 0.0]])
    K = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    V = np.array([[1.0], [0.0]])
    out, weights = an.scaled_dot_product_attention(Q, K, V)
    e = math.e
    np.testing.assert_allclose(weights, [[e / (e + 1), 1 / (e + 1)]], rtol=RTOL)
    np.testing.assert_allclose(out, [[e / (e + 1)]], rtol=RTOL)


def test_sdpa_causal_first_query_sees_only_first_key():
    r = rng(12)
    Q, K, V = r.normal(size=(3, 6, 4)), r.normal(size=(3, 6, 4)), r.normal(size=(3, 6, 5))
    mask = np.tril(np.ones((6, 6), dtype=bool))
    out, weights = an.scaled_dot_product_attention(Q, K, V, mask)
    np.testing.assert_array_equal(weights[:, 0, 0], 1.0)
    np.testing.assert_allclose(out[:, 0], V[:, 0], rtol=RTOL, atol=ATOL)
    assert np.all(np.triu(np.ones((6, 6), dtype=bool), k=1) <= (weights[0] == 0))


def test_sdpa_masked_keys_do_not_influence_output():
    r = rng(13)
    Q, K, V = r.normal(size=(2, 3, 4)), r.normal(size=(2, 5, 4)), r.normal(size=(2, 5, 3))
    pad = padding_oracle([3, 4], 5)[:, None, :]
    out, _ = an.scaled_dot_product_attention(Q, K, V, pad)
    K2, V2 = K.copy(), V.copy()
    K2[0, 3:] = 1e3  # changing padded keys/values must not change anything
    V2[1, 4:] = -7.0
    out2, _ = an.scaled_dot_product_attention(Q, K2, V2, pad)
    np.testing.assert_array_equal(out, out2)


# --------------------------------------------------------------------------- Bahdanau


def make_bahdanau_case(seed=20, B=3, Lk=5, d_q=4, d_k=6, d_a=7):
    r = rng(seed)
    return (r.normal(size=(B, d_q)), r.normal(size=(B, Lk, d_k)), r.normal(size=(d_q, d_a)),
            r.normal(size=(d_k, d_a)), r.normal(size=(d_a,)))


@pytest.mark.parametrize("masked", [False, True])
def test_bahdanau_matches_loop_oracle(masked):
    query, keys, W_q, W_k, v = make_bahdanau_case()
    mask = padding_oracle([5, 2, 4], 5) if masked else None
    context, weights = an.bahdanau_attention(query, keys, W_q, W_k, v, mask)
    expected_c, expected_w = bahdanau_oracle(query, keys, W_q, W_k, v, mask)
    assert isinstance(context, np.ndarray) and isinstance(weights, np.ndarray)
    assert context.shape == (3, 6)
    assert weights.shape == (3, 5)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(context, expected_c, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    if masked:
        assert np.all(weights[~mask] == 0.0)


def test_bahdanau_query_and_key_dims_may_differ_from_attn_dim():
    query, keys, W_q, W_k, v = make_bahdanau_case(seed=21, B=2, Lk=3, d_q=2, d_k=5, d_a=1)
    context, weights = an.bahdanau_attention(query, keys, W_q, W_k, v)
    expected_c, expected_w = bahdanau_oracle(query, keys, W_q, W_k, v)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(context, expected_c, rtol=1e-9, atol=1e-12)


def test_bahdanau_context_is_weighted_sum_of_keys():
    query, keys, W_q, W_k, v = make_bahdanau_case(seed=22)
    context, weights = an.bahdanau_attention(query, keys, W_q, W_k, v)
    for b in range(keys.shape[0]):
        expected = sum(weights[b, j] * keys[b, j] for j in range(keys.shape[1]))
        np.testing.assert_allclose(context[b], expected, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- heads


@pytest.mark.parametrize("B,L,d_model,H", [(2, 3, 8, 2), (1, 5, 12, 3), (3, 1, 6, 6), (2, 4, 5, 1)])
def test_split_heads_shape_and_features_per_head(B, L, d_model, H):
    x = rng(30).normal(size=(B, L, d_model))
    out = an.split_heads(x, H)
    d_k = d_model // H
    assert isinstance(out, np.ndarray)
    assert out.shape == (B, H, L, d_k)
    for b, h, t, j in itertools.product(range(B), range(H), range(L), range(d_k)):
        assert out[b, h, t, j] == x[b, t, h * d_k + j]


@pytest.mark.parametrize("B,L,d_model,H", [(2, 3, 8, 2), (1, 5, 12, 3), (3, 1, 6, 6)])
def test_combine_heads_shape_and_head_order(B, L, d_model, H):
    d_k = d_model // H
    x = rng(31).normal(size=(B, H, L, d_k))
    out = an.combine_heads(x)
    assert isinstance(out, np.ndarray)
    assert out.shape == (B, L, d_model)
    for b, h, t, j in itertools.product(range(B), range(H), range(L), range(d_k)):
        assert out[b, t, h * d_k + j] == x[b, h, t, j]


def test_combine_heads_keeps_heads_in_order():
    # Head h is filled with the value h: the features must come out in ascending blocks.
    heads = np.broadcast_to(np.arange(4.0)[None, :, None, None], (2, 4, 3, 2)).copy()
    out = an.combine_heads(heads)
    assert np.array_equal(out[0, 0], [0, 0, 1, 1, 2, 2, 3, 3])


def test_split_and_combine_are_inverses():
    x = rng(32).normal(size=(2, 5, 12))
    np.testing.assert_array_equal(an.combine_heads(an.split_heads(x, 3)), x)
    y = rng(33).normal(size=(2, 4, 5, 3))
    np.testing.assert_array_equal(an.split_heads(an.combine_heads(y), 4), y)


@pytest.mark.parametrize("d_model,H", [(10, 3), (8, 3), (5, 2), (6, 4)])
def test_split_heads_rejects_indivisible_d_model(d_model, H):
    with pytest.raises(ValueError, match="divisible"):
        an.split_heads(np.zeros((1, 2, d_model)), H)


# --------------------------------------------------------------------------- positional encoding


@pytest.mark.parametrize("max_len,d_model", [(1, 2), (10, 4), (50, 16), (7, 6), (200, 64)])
def test_positional_encoding_matches_formula(max_len, d_model):
    pe = an.positional_encoding(max_len, d_model)
    assert isinstance(pe, np.ndarray)
    assert pe.shape == (max_len, d_model)
    assert pe.dtype == np.float64
    np.testing.assert_allclose(pe, pe_oracle(max_len, d_model), rtol=1e-10, atol=1e-12)


def test_positional_encoding_known_values():
    # d_model = 4: frequencies 1 and 1/10000^(2/4) = 1/100.
    pe = an.positional_encoding(6, 4)
    for p in range(6):
        expected = [math.sin(p), math.cos(p), math.sin(p / 100), math.cos(p / 100)]
        np.testing.assert_allclose(pe[p], expected, rtol=1e-12, atol=1e-15)
    # d_model = 8, column 2 is pair i = 1: frequency 1/10000^(2/8) = 0.1 (the "2*i" mistake
    # of stepping i by 2 and doubling it again would give 0.01).
    pe8 = an.positional_encoding(4, 8)
    np.testing.assert_allclose(pe8[3, 2], math.sin(0.3), rtol=1e-12)
    np.testing.assert_allclose(pe8[3, 3], math.cos(0.3), rtol=1e-12)


def test_positional_encoding_position_zero():
    pe = an.positional_encoding(3, 10)
    np.testing.assert_array_equal(pe[0], np.tile([0.0, 1.0], 5))


@pytest.mark.parametrize("d_model", [1, 3, 7, 513])
def test_positional_encoding_rejects_odd_d_model(d_model):
    with pytest.raises(ValueError):
        an.positional_encoding(10, d_model)


# --------------------------------------------------------------------------- relative shift


def shift_oracle(k, d_model):
    M = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        w = 1.0 / 10000 ** (2 * i / d_model)
        c, s = math.cos(w * k), math.sin(w * k)
        M[2 * i, 2 * i], M[2 * i, 2 * i + 1] = c, s
        M[2 * i + 1, 2 * i], M[2 * i + 1, 2 * i + 1] = -s, c
    return M


@pytest.mark.parametrize("d_model", [2, 4, 6, 16, 64, 512])
@pytest.mark.parametrize("k", [0, 1, 2, 5, 17, 100, -1, -3, -100])
def test_rotation_property(d_model, k):
    max_len = 300
    pe = an.positional_encoding(max_len, d_model)
    M = an.relative_shift_matrix(k, d_model)
    assert M.shape == (d_model, d_model)
    positions = [p for p in range(max_len) if 0 <= p + k < max_len]
    for p in positions[::7] + positions[-1:]:
        np.testing.assert_allclose(M @ pe[p], pe[p + k], rtol=0, atol=1e-9)
    # All valid positions at once: PE[p + k] = M @ PE[p] in row form is PE[p] @ M.T.
    p = np.array(positions)
    np.testing.assert_allclose(pe[p] @ M.T, pe[p + k], rtol=0, atol=1e-9)


@pytest.mark.parametrize("d_model", [2, 8, 20])
@pytest.mark.parametrize("k", [0, 1, -4, 13, 2.5])
def test_relative_shift_matrix_is_block_diagonal_rotations(d_model, k):
    M = an.relative_shift_matrix(k, d_model)
    assert isinstance(M, np.ndarray)
    np.testing.assert_allclose(M, shift_oracle(k, d_model), rtol=1e-12, atol=1e-15)
    off_block = np.ones((d_model, d_model), dtype=bool)
    for i in range(0, d_model, 2):
        off_block[i:i + 2, i:i + 2] = False
    assert np.all(M[off_block] == 0.0)
    np.testing.assert_allclose(M @ M.T, np.eye(d_model), atol=1e-12)


def test_relative_shift_matrix_group_properties():
    d = 12
    np.testing.assert_array_equal(an.relative_shift_matrix(0, d), np.eye(d))
    np.testing.assert_allclose(an.relative_shift_matrix(3, d) @ an.relative_shift_matrix(4, d),
                               an.relative_shift_matrix(7, d), atol=1e-12)
    np.testing.assert_allclose(an.relative_shift_matrix(-5, d), an.relative_shift_matrix(5, d).T,
                               atol=1e-15)


def test_relative_shift_matrix_sign_convention():
    # First block, frequency 1: [[cos k, sin k], [-sin k, cos k]].
    M = an.relative_shift_matrix(1, 2)
    np.testing.assert_allclose(M, [[math.cos(1), math.sin(1)], [-math.sin(1), math.cos(1)]],
                               rtol=1e-14)


@pytest.mark.parametrize("d_model", [1, 5])
def test_relative_shift_matrix_rejects_odd_d_model(d_model):
    # Not in the contract (which only defines even d_model); the reference chooses ValueError.
    with pytest.raises(ValueError):
        an.relative_shift_matrix(1, d_model)


# --------------------------------------------------------------------------- standalone design


SOURCE_PATH = Path(an.__file__)


def test_imports_only_numpy_and_math():
    tree = ast.parse(SOURCE_PATH.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports are invisible in the sandbox"
            imported.add(node.module.split(".")[0])
    assert imported <= {"numpy", "math"}


def test_graded_functions_do_not_use_each_other():
    tree = ast.parse(SOURCE_PATH.read_text(encoding="utf-8"))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert set(GRADED) <= set(functions)
    for name in GRADED:
        used = {n.id for n in ast.walk(functions[name]) if isinstance(n, ast.Name)}
        assert not (used & (set(GRADED) - {name})), f"{name} uses {used & set(GRADED)}"


def _smoke(ns):
    """One call of every graded name, from a namespace holding an executed copy of the file."""
    r = rng(40)
    Q, K, V = r.normal(size=(2, 3, 4)), r.normal(size=(2, 5, 4)), r.normal(size=(2, 5, 2))
    query, keys, W_q, W_k, v = make_bahdanau_case(seed=41)
    W_c, v_c = r.normal(size=(8, 3)), r.normal(size=3)
    return {
        "softmax": lambda: ns["softmax"](Q[0], axis=0),
        "causal_mask": lambda: ns["causal_mask"](4),
        "padding_mask": lambda: ns["padding_mask"]([1, 3], 4),
        "scaled_dot_product_attention": lambda: ns["scaled_dot_product_attention"](
            Q, K, V, np.ones((3, 5), dtype=bool)),
        "bahdanau_attention": lambda: ns["bahdanau_attention"](
            query, keys, W_q, W_k, v, np.ones((3, 5), dtype=bool)),
        "split_heads": lambda: ns["split_heads"](Q, 2),
        "combine_heads": lambda: ns["combine_heads"](Q[None]),
        "positional_encoding": lambda: ns["positional_encoding"](5, 4),
        "relative_shift_matrix": lambda: ns["relative_shift_matrix"](2, 4),
        "luong_attention": lambda: ns["luong_attention"](
            Q[:, 0], K, V, "concat", W_c=W_c, v=v_c),
    }


def _run_source(source):
    namespace = {"__name__": "attention_numpy"}
    exec(compile(source, "attention_numpy.py", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("overridden", GRADED)
def test_overriding_one_name_leaves_the_others_intact(overridden):
    # The mutant catalogue appends a new definition of one public name to the file.
    source = SOURCE_PATH.read_text(encoding="utf-8")
    broken = source + (
        f"\n\ndef {overridden}(*args, **kwargs):\n"
        "    raise RuntimeError('overridden')\n"
    )
    original = _smoke(_run_source(source))
    mutated = _smoke(_run_source(broken))
    if overridden in mutated:
        with pytest.raises(RuntimeError, match="overridden"):
            mutated[overridden]()
    for name in set(GRADED) & set(original) - {overridden}:
        expected, got = original[name](), mutated[name]()
        if isinstance(expected, tuple):
            assert isinstance(got, tuple) and len(got) == len(expected)
            for e, g in zip(expected, got, strict=True):
                np.testing.assert_array_equal(g, e)
        else:
            np.testing.assert_array_equal(got, expected)
