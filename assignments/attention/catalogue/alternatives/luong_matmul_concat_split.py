"""luong_attention with batched matmuls (query[:, None, :] @ keys.transpose(0, 2, 1)) and the
concat score built by concatenating the broadcast query with the keys, then @ W_c; masking
with a very negative number whose exp underflows to exactly 0."""
# item: luong_attention
import numpy as np


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method == "dot":
        projected = query
    elif method == "general":
        if W is None:
            raise ValueError("general needs W")
        projected = query @ W
    elif method == "concat":
        if W_c is None or v is None:
            raise ValueError("concat needs W_c and v")
        pairs = np.concatenate([np.broadcast_to(query[:, None, :], keys.shape), keys], axis=-1)
        scores = np.tanh(pairs @ W_c) @ v
    else:
        raise ValueError(f"unknown method {method}")
    if method != "concat":
        scores = (projected[:, None, :] @ keys.transpose(0, 2, 1))[:, 0, :]
    if mask is not None:
        scores = np.where(mask, scores, -1e30)
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    context = (weights[:, None, :] @ values)[:, 0, :]
    return context, weights
