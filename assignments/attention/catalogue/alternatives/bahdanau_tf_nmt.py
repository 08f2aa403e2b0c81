"""The TensorFlow NMT tutorial's BahdanauAttention in NumPy: the query with a time axis,
V(tanh(W1(query) + W2(values))) as scores of shape (B, Lk, 1), softmax over axis 1, the
context as the sum over axis 1 of weights * values."""
# item: bahdanau_attention
# Source: TensorFlow tutorial "Neural machine translation with attention"
# (tensorflow/docs, site/en/tutorials/text/nmt_with_attention.ipynb), BahdanauAttention.call:
#     query_with_time_axis = tf.expand_dims(query, 1)
#     score = self.V(tf.nn.tanh(self.W1(query_with_time_axis) + self.W2(values)))
#     attention_weights = tf.nn.softmax(score, axis=1)
#     context_vector = tf.reduce_sum(attention_weights * values, axis=1)
# Changes for the contract: the Dense layers are the given matrices without bias (W1 = W_q,
# W2 = W_k, V = v), the mask (the tutorial has none) sets masked scores to -inf, and the
# weights are returned as (B, Lk) without the trailing axis.
import numpy as np


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    values = keys
    query_with_time_axis = np.expand_dims(query, 1)
    score = np.tanh(query_with_time_axis @ W_q + values @ W_k) @ v[:, None]  # (B, Lk, 1)
    if mask is not None:
        score = np.where(mask[:, :, None], score, -np.inf)
    score = np.exp(score - score.max(axis=1, keepdims=True))
    attention_weights = score / score.sum(axis=1, keepdims=True)
    context_vector = np.sum(attention_weights * values, axis=1)
    return context_vector, attention_weights[:, :, 0]
