"""d2l.ai's AdditiveAttention in NumPy: query and key features added with broadcasting
(a query axis of length 1), tanh, the w_v projection, masked_softmax (masked scores set to
-1e6), a batched matmul with the values (here the keys)."""
# item: bahdanau_attention
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# attention-scoring-functions.md: masked_softmax and AdditiveAttention, ported to NumPy with the
# contract's row-vector weights (x @ W_q instead of W_q(x)) and bool mask (instead of valid_lens).
import numpy as np


def masked_softmax(X, mask):
    """Perform softmax operation by masking elements on the last axis."""
    if mask is not None:
        X = np.where(mask, X, -1e6)
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def bahdanau_attention(query, keys, W_q, W_k, v, mask=None):
    queries, values = query[:, None, :], keys
    queries, keys = queries @ W_q, keys @ W_k
    # (batch_size, no. of queries, 1, num_hiddens) + (batch_size, 1, no. of key-value pairs, num_hiddens)
    features = np.tanh(queries[:, :, None, :] + keys[:, None, :, :])
    scores = features @ v  # (batch_size, no. of queries, no. of key-value pairs)
    attention_weights = masked_softmax(scores, None if mask is None else mask[:, None, :])
    context = attention_weights @ values
    return context[:, 0, :], attention_weights[:, 0, :]
