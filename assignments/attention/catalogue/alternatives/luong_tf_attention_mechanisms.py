"""TensorFlow's attention mechanisms in NumPy: LuongAttention for general (the memory layer on the
keys, then query . keys), its _luong_score alone for dot, and BahdanauAttention's additive score
for concat (v . tanh(query layer(query) + memory layer(keys)), which is Luong's concat with W_c
split in two); masked scores set to -inf (score_mask_value), softmax, alignments @ values."""
# item: luong_attention
# Source: TensorFlow Addons, tensorflow_addons/seq2seq/attention_wrapper.py (formerly
# tf.contrib.seq2seq): LuongAttention (memory_layer = Dense(units, use_bias=False) applied to the
# memory, _luong_score: matmul(expand_dims(query, 1), keys, transpose_b=True), scale=False),
# BahdanauAttention (query_layer and memory_layer without bias, _bahdanau_score:
# reduce_sum(attention_v * tanh(keys + processed_query), [2]), normalize=False), and
# _maybe_mask_score with score_mask_value = -inf. Changes for the contract: the layers' kernels
# are the given matrices (the memory kernel of general is W.T, since query . (key @ W.T) =
# (query @ W) . key; the query and memory kernels of concat are W_c[:d] and W_c[d:]); the
# memory (values of the context) is the contract's `values`, separate from `keys`; ValueErrors.
import numpy as np


def _luong_score(query, keys):
    return np.squeeze(np.matmul(np.expand_dims(query, 1), np.swapaxes(keys, 1, 2)), 1)


def _bahdanau_score(processed_query, keys, attention_v):
    return np.sum(attention_v * np.tanh(keys + np.expand_dims(processed_query, 1)), axis=2)


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method == "dot":
        score = _luong_score(query, keys)
    elif method == "general":
        if W is None:
            raise ValueError("general needs W")
        score = _luong_score(query, keys @ W.T)  # memory_layer(keys)
    elif method == "concat":
        if W_c is None or v is None:
            raise ValueError("concat needs W_c and v")
        d = query.shape[-1]
        score = _bahdanau_score(query @ W_c[:d], keys @ W_c[d:], v)
    else:
        raise ValueError(f"unknown method {method}")
    if mask is not None:
        score = np.where(mask, score, -np.inf)  # _maybe_mask_score
    alignments = np.exp(score - score.max(axis=-1, keepdims=True))
    alignments /= alignments.sum(axis=-1, keepdims=True)
    context = np.squeeze(np.matmul(np.expand_dims(alignments, 1), values), 1)
    return context, alignments
