"""Part 1 of the attention assignment: attention from scratch in NumPy.

Conventions (fixed by the assignment's contract):

* Masks are boolean and ``True`` means "may attend" (the convention of
  ``torch.nn.functional.scaled_dot_product_attention``). Masked positions get weight exactly
  ``0``; every row of weights over the keys sums to ``1``.
* Projections use row vectors: ``x @ W``.
* Functions receive ``float64`` arrays and return ``np.ndarray``.
* ``...`` in a shape means any number of leading batch dimensions, including none.

This file imports only numpy and math, and no graded function calls another graded
function: the grader also runs this file as if it were a student's submission, and it replaces
one public name at a time when it checks that its tests catch mistakes.
"""

import math

import numpy as np


def _softmax_last_axis(scores):
    """Stable softmax over the last axis (private: the attention functions use it, not
    ``softmax``, so that replacing the public ``softmax`` cannot change them)."""
    # Subtracting the row maximum keeps exp() <= 1: no overflow. A -inf entry becomes
    # exp(-inf) = 0 exactly, which is what makes masked weights exactly zero.
    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / np.sum(exp, axis=-1, keepdims=True)


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``.

    ``softmax(x)_i = exp(x_i - m) / sum_j exp(x_j - m)`` with ``m = max_j x_j`` taken along
    ``axis`` (so each slice is shifted by its own maximum: mathematically the same softmax,
    but ``exp`` never overflows, even for inputs of magnitude 1e3).

    Args:
        x: array of any shape (float64).
        axis: the axis to normalise over (negative values count from the end).

    Returns:
        An array of ``x``'s shape whose slices along ``axis`` are non-negative and sum to 1.
        Entries equal to ``-inf`` get weight exactly 0. A slice that is entirely ``-inf`` is
        undefined (it gives NaN) and never occurs in the assignment.
    """
    x = np.asarray(x)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exp = np.exp(shifted)
    return exp / np.sum(exp, axis=axis, keepdims=True)


def causal_mask(seq_len):
    """Causal (look-ahead) mask.

    Returns:
        bool array ``(seq_len, seq_len)``: entry ``[i, j]`` is ``True`` (query ``i`` may
        attend to key ``j``) exactly when ``j <= i``: the past and the position itself.
    """
    positions = np.arange(seq_len)
    return positions[None, :] <= positions[:, None]


def padding_mask(lengths, max_len):
    """Padding mask for a batch of sequences padded to ``max_len``.

    Args:
        lengths: sequence or 1-D int array of the true lengths, each in ``1..max_len``.
        max_len: the padded length.

    Returns:
        bool array ``(batch, max_len)``: entry ``[b, j]`` is ``True`` (a real token, may be
        attended to) exactly when ``j < lengths[b]``.
    """
    lengths = np.asarray(lengths).reshape(-1)
    return np.arange(max_len)[None, :] < lengths[:, None]


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Scaled dot-product attention.

    ``weights = softmax(Q K^T / sqrt(d_k))`` over the keys, with masked entries set to 0,
    and ``output = weights @ V``.

    Args:
        Q: queries ``(..., Lq, d_k)``.
        K: keys ``(..., Lk, d_k)``.
        V: values ``(..., Lk, d_v)``.
        mask: optional bool array broadcastable to ``(..., Lq, Lk)``; ``True`` = may attend.

    Returns:
        ``(output, weights)`` with shapes ``(..., Lq, d_v)`` and ``(..., Lq, Lk)``.
    """
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    d_k = Q.shape[-1]
    # swapaxes, not K.T: .T would also reverse the batch dimensions of batched input.
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)
    if mask is not None:
        # -inf, not a large negative number, so that masked weights are exactly 0.
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = _softmax_last_axis(scores)
    return weights @ V, weights


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    """Additive (Bahdanau) attention of one query per batch element over its keys.

    Score ``e[b, j] = v . tanh(query[b] @ W_q + keys[b, j] @ W_k)``, weights
    ``softmax_j(e[b, j])`` (masked keys get weight 0), context
    ``context[b] = sum_j weights[b, j] * keys[b, j]``.

    Args:
        query: ``(B, d_q)``.
        keys: ``(B, Lk, d_k)``; they are also the values.
        W_q: ``(d_q, d_a)``.
        W_k: ``(d_k, d_a)``.
        v: ``(d_a,)``.
        mask: optional bool ``(B, Lk)``; ``True`` = may attend.

    Returns:
        ``(context, weights)`` with shapes ``(B, d_k)`` and ``(B, Lk)``.
    """
    query = np.asarray(query)
    keys = np.asarray(keys)
    # The query's projection is shared by all keys of its batch element: add it once per key.
    hidden = np.tanh((query @ W_q)[:, None, :] + keys @ W_k)  # (B, Lk, d_a)
    scores = hidden @ np.asarray(v)  # (B, Lk)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = _softmax_last_axis(scores)
    context = (weights[:, None, :] @ keys)[:, 0, :]  # (B, 1, Lk) @ (B, Lk, d_k)
    return context, weights


def split_heads(x, num_heads):
    """Split the feature axis into heads.

    ``(B, L, d_model) -> (B, num_heads, L, d_k)`` with ``d_k = d_model // num_heads``; head
    ``h`` holds features ``h*d_k ... (h+1)*d_k - 1``.

    Raises:
        ValueError: if ``d_model`` is not divisible by ``num_heads``.
    """
    x = np.asarray(x)
    d_model = x.shape[-1]
    if num_heads <= 0 or d_model % num_heads != 0:
        raise ValueError(
            f"d_model ({d_model}) must be divisible by num_heads ({num_heads})"
        )
    d_k = d_model // num_heads
    # Reshape keeps each head's features contiguous; then move the head axis before L.
    heads = x.reshape(*x.shape[:-1], num_heads, d_k)
    return np.ascontiguousarray(np.swapaxes(heads, -3, -2))


def combine_heads(x):
    """Concatenate the heads again: ``(B, H, L, d_k) -> (B, L, H * d_k)``, the exact inverse
    of :func:`split_heads` (head ``h`` becomes features ``h*d_k ... (h+1)*d_k - 1``)."""
    x = np.asarray(x)
    num_heads, seq_len, d_k = x.shape[-3:]
    merged = np.swapaxes(x, -3, -2)  # (..., L, H, d_k)
    return merged.reshape(*x.shape[:-3], seq_len, num_heads * d_k)


def positional_encoding(max_len, d_model):
    """Sinusoidal positional encoding.

    ``PE[p, 2i] = sin(p / 10000^(2i/d_model))`` and ``PE[p, 2i+1] = cos(p / 10000^(2i/d_model))``
    for positions ``p = 0 .. max_len-1`` and ``i = 0 .. d_model/2 - 1``.

    Returns:
        float64 array ``(max_len, d_model)``.

    Raises:
        ValueError: if ``d_model`` is odd (sin and cos come in pairs).
    """
    if d_model <= 0 or d_model % 2 != 0:
        raise ValueError(f"d_model must be a positive even number, got {d_model}")
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    # The exponent is 2i/d_model with i counting pairs (0, 1, 2, ...), not the column index.
    pair = np.arange(d_model // 2, dtype=np.float64)
    freqs = 1.0 / np.power(10000.0, 2.0 * pair / d_model)
    angles = positions * freqs[None, :]
    pe = np.empty((max_len, d_model), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def relative_shift_matrix(k, d_model):
    """The linear map that shifts a positional encoding by ``k`` positions.

    Block diagonal with one 2x2 rotation per frequency ``w_i = 1 / 10000^(2i/d_model)``:
    ``[[cos(w_i k), sin(w_i k)], [-sin(w_i k), cos(w_i k)]]`` acting on the pair
    ``(PE[p, 2i], PE[p, 2i+1]) = (sin(w_i p), cos(w_i p))``. By the angle-addition formulas,
    ``PE[p + k] = M @ PE[p]`` for every valid ``p`` (the rotation property); ``k`` may be
    negative.

    Returns:
        float64 array ``(d_model, d_model)``.

    Raises:
        ValueError: if ``d_model`` is odd (there would be no pairing into 2x2 blocks).
    """
    if d_model <= 0 or d_model % 2 != 0:
        raise ValueError(f"d_model must be a positive even number, got {d_model}")
    pair = np.arange(d_model // 2, dtype=np.float64)
    freqs = 1.0 / np.power(10000.0, 2.0 * pair / d_model)
    cos = np.cos(freqs * k)
    sin = np.sin(freqs * k)
    even = np.arange(0, d_model, 2)
    odd = even + 1
    M = np.zeros((d_model, d_model), dtype=np.float64)
    M[even, even] = cos
    M[even, odd] = sin
    M[odd, even] = -sin
    M[odd, odd] = cos
    return M


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    """Multiplicative (Luong) attention of one query per batch element over its keys.

    The score of key ``j`` for batch element ``b``, by ``method``:

    * ``"dot"``: ``e[b, j] = query[b] . keys[b, j]`` (no parameters);
    * ``"general"``: ``e[b, j] = (query[b] @ W) . keys[b, j]`` with ``W (d, d)``;
    * ``"concat"``: ``e[b, j] = v . tanh(concat(query[b], keys[b, j]) @ W_c)`` with
      ``W_c (2d, d_a)`` and ``v (d_a,)``, the query first (no bias).

    Weights ``softmax_j(e[b, j])`` (masked keys get weight exactly 0), context
    ``context[b] = sum_j weights[b, j] * values[b, j]``.

    Args:
        query: ``(B, d)``.
        keys: ``(B, Lk, d)``.
        values: ``(B, Lk, d_v)``.
        method: ``"dot"``, ``"general"`` or ``"concat"``.
        W, W_c, v: the parameters of the chosen method (the others are ignored).
        mask: optional bool ``(B, Lk)``; ``True`` = may attend.

    Returns:
        ``(context, weights)`` with shapes ``(B, d_v)`` and ``(B, Lk)``.

    Raises:
        ValueError: for any other ``method``, or when the chosen method's parameters are None.
    """
    if method not in ("dot", "general", "concat"):
        raise ValueError(f"method must be 'dot', 'general' or 'concat', got {method!r}")
    query = np.asarray(query)
    keys = np.asarray(keys)
    values = np.asarray(values)
    if method == "dot":
        scores = np.einsum("bd,bjd->bj", query, keys)
    elif method == "general":
        if W is None:
            raise ValueError("method 'general' needs W of shape (d, d)")
        scores = np.einsum("bd,bjd->bj", query @ np.asarray(W), keys)
    else:
        if W_c is None or v is None:
            raise ValueError("method 'concat' needs W_c of shape (2d, d_a) and v of shape (d_a,)")
        W_c = np.asarray(W_c)
        d = query.shape[-1]
        # concat(q, k) @ W_c = q @ W_c[:d] + k @ W_c[d:]: the query's half is shared by all keys.
        hidden = np.tanh((query @ W_c[:d])[:, None, :] + keys @ W_c[d:])  # (B, Lk, d_a)
        scores = hidden @ np.asarray(v)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = _softmax_last_axis(scores)
    context = (weights[:, None, :] @ values)[:, 0, :]  # (B, 1, Lk) @ (B, Lk, d_v)
    return context, weights


# ---- mutant: causal_mask_loops_forever ----
"""The loop that builds the mask never advances its outer counter, so it never returns.

causal mask built with while loops whose outer counter is never advanced: it never returns."""
# item: causal_mask
import numpy as np


def causal_mask(seq_len):
    mask = np.zeros((seq_len, seq_len), dtype=bool)
    i = 0
    while i < seq_len:
        j = 0
        while j <= i:
            mask[i, j] = True
            j += 1
    return mask
