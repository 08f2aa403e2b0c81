"""The mask is read with the opposite convention: the positions marked True, which may be attended to, are the ones blocked.

attention reading the mask with the 1 = blocked convention and -inf as the blocking value: a
query whose every key is allowed gets a row of -inf, and its weights are NaN."""
# item: scaled_dot_product_attention
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)  # hide the masked positions
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
