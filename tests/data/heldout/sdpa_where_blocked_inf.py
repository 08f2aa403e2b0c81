"""Attention that reads True as blocked, with -inf as the blocking value: a row the mask
allows in full becomes all -inf, and its weights NaN."""
# item: scaled_dot_product_attention
# expect: sdpa_inverted_mask_inf
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -2, -1)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return np.matmul(attn, V), attn
