"""Two correct students whose only difference from the reference is precision, for every
NumPy item: one computes everything in float32 and returns float32 arrays; the other computes
in float64 but with the float32 constants that tutorials are full of (``tf.cast(d_k,
tf.float32)``, a float32 ``arange`` for the frequencies, a float32 ``-1e9``)."""

FLOAT32_EVERYWHERE = '''
import numpy as np

f32 = np.float32


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=f32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(seq_len):
    i = np.arange(seq_len, dtype=f32)
    return i[None, :] <= i[:, None]


def padding_mask(lengths, max_len):
    return np.arange(max_len, dtype=f32)[None, :] < np.asarray(lengths, dtype=f32)[:, None]


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=f32) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(f32(Q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, f32(-np.inf))
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    query, keys, W_q, W_k, v = (np.asarray(a, dtype=f32) for a in (query, keys, W_q, W_k, v))
    scores = np.tanh((query @ W_q)[:, None, :] + keys @ W_k) @ v
    if mask is not None:
        scores = np.where(mask, scores, f32(-np.inf))
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return np.einsum("bj,bjd->bd", w, keys), w


def split_heads(x, num_heads):
    x = np.asarray(x, dtype=f32)
    b, length, d_model = x.shape
    if d_model % num_heads:
        raise ValueError("d_model must be divisible by num_heads")
    return x.reshape(b, length, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)


def combine_heads(x):
    x = np.asarray(x, dtype=f32)
    b, h, length, d_k = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, length, h * d_k)


def positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pos = np.arange(max_len, dtype=f32)[:, None]
    two_i = np.arange(0, d_model, 2, dtype=f32)
    angles = pos / np.power(f32(10000), two_i / f32(d_model))
    pe = np.zeros((max_len, d_model), dtype=f32)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def relative_shift_matrix(k, d_model):
    w = f32(1) / np.power(f32(10000), np.arange(0, d_model, 2, dtype=f32) / f32(d_model))
    c, s = np.cos(w * f32(k)), np.sin(w * f32(k))
    M = np.zeros((d_model, d_model), dtype=f32)
    even = np.arange(0, d_model, 2)
    M[even, even], M[even, even + 1], M[even + 1, even], M[even + 1, even + 1] = c, s, -s, c
    return M

def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method not in ("dot", "general", "concat"):
        raise ValueError("unknown method")
    query, keys, values = (np.asarray(a, dtype=f32) for a in (query, keys, values))
    if method == "dot":
        scores = np.einsum("bd,bjd->bj", query, keys)
    elif method == "general":
        if W is None:
            raise ValueError("general needs W")
        scores = np.einsum("bd,bjd->bj", query @ np.asarray(W, dtype=f32), keys)
    else:
        if W_c is None or v is None:
            raise ValueError("concat needs W_c and v")
        pairs = np.concatenate([np.broadcast_to(query[:, None, :], keys.shape), keys], axis=-1)
        scores = np.tanh(pairs @ np.asarray(W_c, dtype=f32)) @ np.asarray(v, dtype=f32)
    if mask is not None:
        scores = np.where(mask, scores, f32(-np.inf))
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return np.einsum("bj,bjv->bv", w, values), w

'''

FLOAT32_CONSTANTS = '''
import math

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / (e.sum(axis=axis, keepdims=True) + np.float32(1e-12))


def causal_mask(seq_len):
    return np.tril(np.ones((seq_len, seq_len), dtype=np.float32)).astype(bool)


def padding_mask(lengths, max_len):
    return np.arange(max_len, dtype=np.float32) < np.asarray(lengths)[:, None]


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(np.float32(K.shape[-1]))
    if mask is not None:
        scores = scores + np.logical_not(mask) * np.float32(-1e9)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    scores = np.tanh((query @ W_q)[:, None, :] + keys @ W_k) @ v
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-1e9))
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return (w[:, :, None] * keys).sum(axis=1), w


def split_heads(x, num_heads):
    b, length, d_model = x.shape
    if d_model % num_heads:
        raise ValueError("d_model must be divisible by num_heads")
    scale = np.float32(1.0)
    return scale * x.reshape(b, length, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)


def combine_heads(x):
    b, h, length, d_k = x.shape
    return np.float32(1.0) * x.transpose(0, 2, 1, 3).reshape(b, length, h * d_k)


def positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    position = np.arange(max_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2, dtype=np.float32) * np.float32(-math.log(10000.0) / d_model))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def relative_shift_matrix(k, d_model):
    freqs = np.float32(10000.0) ** (-np.arange(0, d_model, 2, dtype=np.float32) / np.float32(d_model))
    M = np.zeros((d_model, d_model))
    for i, w in enumerate(freqs):
        c, s = math.cos(w * k), math.sin(w * k)
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
    return M


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method not in ("dot", "general", "concat"):
        raise ValueError("unknown method")
    if method == "concat":
        if W_c is None or v is None:
            raise ValueError("concat needs W_c and v")
        d = query.shape[-1]
        scores = np.tanh((query @ W_c[:d])[:, None, :] + keys @ W_c[d:]) @ v
    else:
        if method == "general" and W is None:
            raise ValueError("general needs W")
        projected = query @ W if method == "general" else query * np.float32(1.0)
        scores = (keys @ projected[:, :, None])[:, :, 0]
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-1e9))
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / (w.sum(axis=-1, keepdims=True) + np.float32(1e-12))
    return (w[:, :, None] * values).sum(axis=1), w
'''
