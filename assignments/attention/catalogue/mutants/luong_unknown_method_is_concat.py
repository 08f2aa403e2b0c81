"""An unknown method is taken for concat instead of raising a ValueError.

luong_attention whose last branch is a plain else: any method that is not dot or general
is taken for concat, with no ValueError."""
# item: luong_attention
# loses: rejects_unknown_method
import numpy as np


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method == "dot":
        scores = np.einsum("bd,bjd->bj", query, keys)
    elif method == "general":
        if W is None:
            raise ValueError("the general score needs W")
        scores = np.einsum("bd,bjd->bj", query @ W, keys)
    else:
        if W_c is None or v is None:
            raise ValueError("the concat score needs W_c and v")
        d = query.shape[-1]
        scores = np.tanh((query @ W_c[:d])[:, None, :] + keys @ W_c[d:]) @ v
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("bj,bjv->bv", weights, values), weights
