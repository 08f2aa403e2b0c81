"""The Keras Attention layer (Luong-style dot-product attention) in NumPy: scores =
matmul(query, key, transpose_b=True) with the query given a time axis, masked scores lowered by
1e9 (whose exp underflows to exactly 0), softmax, matmul(weights, value). Used for dot, and for
general on the query projected by W first (the usual Dense before the layer); the layer has no
Luong concat score (its score_mode="concat" sums tanh(q + k) with no W_c or v), so concat is
Luong's score through the same _apply_scores."""
# item: luong_attention
# Source: Keras, keras/src/layers/attention/attention.py (tf.keras.layers.Attention):
# _calculate_scores (score_mode="dot", use_scale=False: ops.matmul(query, ops.transpose(key, ...)))
# and _apply_scores (padding_mask = logical_not(scores_mask); scores -= 1e9 * padding_mask;
# softmax; matmul(weights, value)). Changes for the contract: one query per batch element (a time
# axis of 1, removed on return), value_mask as the contract's mask (True = keep, as in Keras),
# general and concat as said above, ValueErrors.
import numpy as np


def _calculate_scores(query, key):
    return np.matmul(query, np.swapaxes(key, -1, -2))


def _apply_scores(scores, value, scores_mask=None):
    if scores_mask is not None:
        padding_mask = np.logical_not(scores_mask)
        scores = scores - 1.0e9 * padding_mask.astype(scores.dtype)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.matmul(weights, value), weights


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    q = np.expand_dims(query, 1)  # (B, 1, d)
    if method == "dot":
        scores = _calculate_scores(q, keys)
    elif method == "general":
        if W is None:
            raise ValueError("general needs W")
        scores = _calculate_scores(q @ W, keys)
    elif method == "concat":
        if W_c is None or v is None:
            raise ValueError("concat needs W_c and v")
        pairs = np.concatenate([np.broadcast_to(q, keys.shape), keys], axis=-1)
        scores = np.expand_dims(np.tanh(pairs @ W_c) @ v, 1)
    else:
        raise ValueError(f"unknown method {method}")
    scores_mask = None if mask is None else np.expand_dims(mask, 1)
    context, weights = _apply_scores(scores, values, scores_mask)
    return context[:, 0], weights[:, 0]
