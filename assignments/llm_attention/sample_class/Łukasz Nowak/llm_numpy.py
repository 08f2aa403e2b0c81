"""Part 1 of the llm_attention assignment: attention as language models use it, in NumPy.

Conventions (fixed by the assignment's contract, as in the first assignment):

* Masks are boolean and ``True`` means "may attend". Masked weights are exactly ``0``.
* Functions receive ``float64`` arrays and return ``np.ndarray``.
* ``...`` in a shape means any number of leading dimensions, including none.

This file imports only numpy and math, and no graded function calls another graded
function: the grader also runs this file as if it were a student's submission, and it replaces
one public name at a time when it checks that its tests catch mistakes.
"""

import math

import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    """Rotary position embedding (RoPE, RoFormer's adjacent-pair layout).

    Each adjacent pair of features ``(2i, 2i+1)`` of the row at position ``p`` is rotated by
    the angle ``a = p * base**(-2i/d)``::

        y[..., 2i]   = x[..., 2i] cos a - x[..., 2i+1] sin a
        y[..., 2i+1] = x[..., 2i] sin a + x[..., 2i+1] cos a

    that is, ``(x_2i, x_2i+1)`` times the rotation ``[[cos a, -sin a], [sin a, cos a]]``. Pairs
    are adjacent features, not the "rotate half" layout (``i`` with ``i + d/2``) of HF Llama.

    Args:
        x: ``(..., L, d)`` float64, ``d`` even.
        positions: 1-D integer array of length ``L`` (default ``0 .. L-1``), the same for
            every leading index.
        base: the base of the frequencies.

    Returns:
        ``(..., L, d)``: the rotated rows.

    Raises:
        ValueError: if ``d`` is odd (features are rotated in pairs), or ``positions`` is not
            of length ``L``.
    """
    x = np.asarray(x, dtype=np.float64)
    length, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError(f"the feature size d must be even (features are rotated in pairs), got {d}")
    positions = np.arange(length) if positions is None else np.asarray(positions)
    if positions.shape != (length,):
        raise ValueError(f"positions must be a 1-D array of length {length}, got shape {positions.shape}")
    frequencies = base ** (-2.0 * np.arange(d // 2) / d)  # (d/2,): one per pair i
    angles = positions.astype(np.float64)[:, None] * frequencies[None, :]  # (L, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def alibi_bias(num_heads, seq_len):
    """The ALiBi attention bias (Press et al., 2022), causal.

    ``bias[h, i, j] = -m_h * (i - j)`` for ``j <= i`` and ``-inf`` for ``j > i`` (the future
    gets zero weight), with the slopes ``m_h`` of the paper's own ``get_slopes``: for
    ``num_heads`` a power of two, ``m_h = 2**(-8 * (h + 1) / num_heads)``; otherwise, with
    ``p`` the largest power of two below ``num_heads``, the ``p`` slopes of ``p`` followed by
    the first ``num_heads - p`` of every other slope of ``2p``.

    Args:
        num_heads: the number of heads, at least 1.
        seq_len: the sequence length, at least 1.

    Returns:
        ``float64 (num_heads, seq_len, seq_len)``, added to the scores before the softmax.

    Raises:
        ValueError: if ``num_heads < 1`` or ``seq_len < 1``.
    """
    if num_heads < 1 or seq_len < 1:
        raise ValueError(f"num_heads and seq_len must be at least 1, got {num_heads} and {seq_len}")

    def geometric(n):  # n a power of two: 2^(-8/n), 2^(-16/n), ..., 2^(-8)
        return [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]

    if num_heads & (num_heads - 1) == 0:
        slopes = geometric(num_heads)
    else:  # the paper's get_slopes: those of p, then every other one of 2p
        p = 2 ** int(math.floor(math.log2(num_heads)))
        slopes = geometric(p) + geometric(2 * p)[0::2][:num_heads - p]
    slopes = np.array(slopes)
    i = np.arange(seq_len)[:, None]
    j = np.arange(seq_len)[None, :]
    distance = (i - j).astype(np.float64)  # >= 0 in the past, < 0 in the future
    bias = -slopes[:, None, None] * distance[None, :, :]
    return np.where(j > i, -np.inf, bias)


def sliding_window_mask(seq_len, window):
    """The causal sliding-window mask (Longformer, Mistral): each query sees itself and the
    ``window - 1`` keys before it.

    ``mask[i, j] = True`` (may attend) exactly where ``i - window < j <= i``, so row ``i`` has
    ``min(i + 1, window)`` keys.

    Args:
        seq_len: the sequence length.
        window: the number of keys a query sees, itself included; at least 1.

    Returns:
        bool ``(seq_len, seq_len)``.

    Raises:
        ValueError: if ``window < 1``.
    """
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    i = np.arange(seq_len)[:, None]
    j = np.arange(seq_len)[None, :]
    return (j <= i) & (j > i - window)


def blockwise_attention(Q, K, V, block_size, mask=None):
    """Scaled dot-product attention computed over blocks of keys with an online softmax
    (FlashAttention's), never holding the ``(Lq, Lk)`` score matrix.

    The result is ``softmax(Q K^T / sqrt(d_k)) V`` with masked weights 0. The keys are visited
    in blocks of ``block_size`` (the last may be shorter). Per query it keeps a running
    maximum ``m``, a running sum ``l`` of ``exp(score - m)`` and a running weighted sum
    ``acc`` of values. A block with scores ``s`` (``-inf`` where masked) gives
    ``m_new = max(m, max s)``; the old sums are rescaled by ``exp(m_old - m_new)``:
    ``l = l exp(m_old - m_new) + sum exp(s - m_new)``, ``acc = acc exp(m_old - m_new) +
    exp(s - m_new) V_block``. At the end ``output = acc / l``. While a query has seen only
    masked keys, ``m`` stays ``-inf`` and its sums 0: such a block (the first one included)
    changes nothing, and no ``-inf - (-inf)`` makes a NaN. Scores near +-1e3 are safe: every
    exponent is ``<= 0``.

    Args:
        Q: ``(..., Lq, d_k)`` float64.
        K: ``(..., Lk, d_k)`` float64.
        V: ``(..., Lk, d_v)`` float64.
        block_size: keys per block, at least 1.
        mask: bool, broadcastable to ``(..., Lq, Lk)``; ``True`` = may attend. Optional.

    Returns:
        ``(..., Lq, d_v)``: the attention output.

    Raises:
        ValueError: if ``block_size < 1``.
    """
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        mask = mask.reshape((1,) * (1 - mask.ndim) + mask.shape)  # a scalar mask: one axis
    scale = 1.0 / math.sqrt(Q.shape[-1])
    length = K.shape[-2]
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full(lead + (Q.shape[-2], 1), -np.inf)
    total = np.zeros(lead + (Q.shape[-2], 1))
    acc = np.zeros(lead + (Q.shape[-2], V.shape[-1]))
    for start in range(0, length, block_size):
        stop = min(start + block_size, length)
        scores = (Q @ np.swapaxes(K[..., start:stop, :], -1, -2)) * scale  # (..., Lq, block)
        if mask is not None:
            part = mask if mask.shape[-1] == 1 else mask[..., start:stop]
            scores = np.where(part, scores, -np.inf)
        m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
        # Rows that have seen no allowed key yet: shift by 0, so exp(-inf - 0) = 0, not NaN.
        shift = np.where(np.isfinite(m_new), m_new, 0.0)
        rescale = np.exp(m - shift)
        weights = np.exp(scores - shift)
        total = total * rescale + weights.sum(axis=-1, keepdims=True)
        acc = acc * rescale + weights @ V[..., start:stop, :]
        m = m_new
    return acc / total


# ---- mutant: blockwise_whole_matrix ----
"""The whole score matrix is built at once instead of visiting the keys block by block.

softmax(Q K^T / sqrt(d_k)) V on every key together: the right numbers, but it holds the (Lq, Lk)
scores that the blocks exist to avoid. Written in place (one matrix, not three), as a careful
student would: the diagnosis replays it in the grader within its time limit."""
# item: blockwise_attention
# loses: never_holds_the_score_matrix
import math

import numpy as np


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    scores = Q @ np.swapaxes(K, -1, -2)
    scores /= math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores @ V
