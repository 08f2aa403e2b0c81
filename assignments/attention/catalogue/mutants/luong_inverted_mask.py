"""The mask is read the other way round: True means a key may be attended to.

luong_attention with the tutorials' mask convention (True = blocked): it attends to exactly
the keys the mask hides."""
# item: luong_attention
# loses: dot_masked_keys_get_zero_weight, general_masked_keys_get_zero_weight, concat_masked_keys_get_zero_weight
import numpy as np


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method not in ("dot", "general", "concat"):
        raise ValueError(f"unknown method {method!r}")
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
        scores = np.where(mask, -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("bj,bjv->bv", weights, values), weights
