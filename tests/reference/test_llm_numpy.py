"""Proves reference.llm_numpy (part 1 of llm_attention) against independent computations:
RoPE against complex multiplication, blockwise attention against the plain softmax attention
of the whole score matrix, the ALiBi slopes against the values the paper's code publishes,
the window against counts written out by hand."""

import math

import numpy as np
import pytest

from reference import llm_numpy as ln

RTOL, ATOL = 1e-10, 1e-12


def rng(seed=0):
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------- RoPE

def rope_complex(x, positions, base=10000.0):
    """RoFormer's form: the pair (x_2i, x_2i+1) is the complex number x_2i + i x_2i+1, times
    exp(i p theta_i), theta_i = base^(-2i/d); written with Python's complex numbers."""
    *lead, length, d = x.shape
    out = np.empty_like(x)
    for index in np.ndindex(*lead, length):
        p = positions[index[-1]]
        for i in range(d // 2):
            z = complex(x[index][2 * i], x[index][2 * i + 1]) * complex(math.cos(p * base ** (-2 * i / d)),
                                                                      math.sin(p * base ** (-2 * i / d)))
            out[index][2 * i], out[index][2 * i + 1] = z.real, z.imag
    return out


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 7, 8), (1, 2)])
def test_rope_is_complex_multiplication(shape):
    x = rng().normal(size=shape)
    length = shape[-2]
    positions = rng(1).integers(0, 300, size=length)
    np.testing.assert_allclose(ln.apply_rotary(x, positions), rope_complex(x, positions), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(ln.apply_rotary(x), rope_complex(x, np.arange(length)), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(ln.apply_rotary(x, positions, base=500.0), rope_complex(x, positions, 500.0),
                               rtol=RTOL, atol=ATOL)


def test_rope_relative_property():
    q, k = rng().normal(size=(1, 16)), rng(1).normal(size=(1, 16))
    for p, s, t in [(3, 11, 40), (0, 7, 1000), (25, 2, 5)]:
        here = ln.apply_rotary(q, [p]) @ ln.apply_rotary(k, [s]).T
        moved = ln.apply_rotary(q, [p + t]) @ ln.apply_rotary(k, [s + t]).T
        np.testing.assert_allclose(here, moved, rtol=1e-9, atol=1e-9)


def test_rope_rejects_odd_d_and_wrong_positions():
    with pytest.raises(ValueError):
        ln.apply_rotary(np.zeros((3, 5)))
    with pytest.raises(ValueError):
        ln.apply_rotary(np.zeros((3, 4)), np.arange(2))


# --------------------------------------------------------------------------- ALiBi

# The slopes the ALiBi repository's get_slopes gives (ofirpress/attention_with_linear_biases):
# n = 8 is 1/2 .. 1/256; n = 12 is those, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (every other of 16).
PUBLISHED = {
    8: [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625],
    12: [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
         0.7071067811865476, 0.35355339059327373, 0.17677669529663687, 0.08838834764831845],
    1: [0.00390625],
    3: [0.0625, 0.00390625, 0.25],
    6: [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125],
}


@pytest.mark.parametrize("heads", sorted(PUBLISHED))
def test_alibi_slopes_are_the_papers(heads):
    bias = ln.alibi_bias(heads, 4)
    np.testing.assert_allclose(-bias[:, 1, 0], PUBLISHED[heads], rtol=1e-15)


def test_alibi_bias_by_definition():
    bias = ln.alibi_bias(5, 6)
    slopes = [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1]  # the slopes of 4, then the first odd one of 8
    assert bias.shape == (5, 6, 6) and bias.dtype == np.float64
    for h in range(5):
        for i in range(6):
            for j in range(6):
                if j > i:
                    assert bias[h, i, j] == -math.inf
                else:
                    assert bias[h, i, j] == pytest.approx(-slopes[h] * (i - j), abs=1e-15)


def test_alibi_rejects():
    for args in [(0, 4), (4, 0), (-1, 3)]:
        with pytest.raises(ValueError):
            ln.alibi_bias(*args)


# --------------------------------------------------------------------------- window

@pytest.mark.parametrize("seq_len, window", [(6, 1), (6, 3), (5, 5), (4, 9), (1, 1)])
def test_window_by_hand(seq_len, window):
    mask = ln.sliding_window_mask(seq_len, window)
    assert mask.dtype == np.bool_ and mask.shape == (seq_len, seq_len)
    for i in range(seq_len):
        assert [j for j in range(seq_len) if mask[i, j]] == list(range(max(0, i - window + 1), i + 1))
    assert mask.sum(axis=1).tolist() == [min(i + 1, window) for i in range(seq_len)]


def test_window_rejects():
    for window in (0, -2):
        with pytest.raises(ValueError):
            ln.sliding_window_mask(4, window)


# --------------------------------------------------------------------------- blockwise

def plain_attention(Q, K, V, mask=None):
    """The whole score matrix, softmax by the definition (max shift for stability)."""
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ V


@pytest.mark.parametrize("block", [1, 2, 3, 5, 7, 12])
def test_blockwise_every_block_size(block):
    Q, K, V = rng().normal(size=(2, 4, 6)), rng(1).normal(size=(2, 12, 6)), rng(2).normal(size=(2, 12, 3))
    np.testing.assert_allclose(ln.blockwise_attention(Q, K, V, block), plain_attention(Q, K, V), rtol=1e-10,
                               atol=1e-12)


def test_blockwise_masks_and_a_masked_first_block():
    Q, K, V = rng().normal(size=(5, 4)), rng(1).normal(size=(11, 4)), rng(2).normal(size=(11, 2))
    mask = rng(3).random((5, 11)) < 0.6
    mask[:, 0] = False
    mask[2, :8] = False  # query 2: every key of the first two blocks of 4 masked
    mask[2, 9] = True
    for block in (1, 4, 5, 11):
        got = ln.blockwise_attention(Q, K, V, block, mask=mask)
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, plain_attention(Q, K, V, mask), rtol=1e-10, atol=1e-12)
    causal = np.tril(np.ones((5, 11), dtype=bool), k=6)
    np.testing.assert_allclose(ln.blockwise_attention(Q, K, V, 3, mask=causal), plain_attention(Q, K, V, causal),
                               rtol=1e-10, atol=1e-12)
    key_mask = np.arange(11) < 7  # broadcast over the queries
    np.testing.assert_allclose(ln.blockwise_attention(Q, K, V, 4, mask=key_mask),
                               plain_attention(Q, K, V, key_mask), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("offset", [1e3, -1e3])
def test_blockwise_stable_near_1e3(offset):
    Q, K, V = rng().normal(size=(3, 4)), rng(1).normal(size=(9, 4)), rng(2).normal(size=(9, 2))
    # Scores of about +-1e3: Q K^T / 2 shifted by a per-query constant, spread by a few units.
    Q = np.concatenate([Q, np.full((3, 1), offset)], axis=1)
    K = np.concatenate([K, np.full((9, 1), math.sqrt(5))], axis=1)
    got = ln.blockwise_attention(Q, K, V, 4)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, plain_attention(Q, K, V), rtol=1e-9, atol=1e-10)


def test_blockwise_rejects_block_size():
    Q = np.zeros((2, 4))
    for block in (0, -3):
        with pytest.raises(ValueError):
            ln.blockwise_attention(Q, Q, Q, block)
