"""A missing parameter for the chosen method is not reported with a ValueError.

luong_attention that never checks its parameters: concat with W_c=None fails with a TypeError
deep inside (None[:d]), not the contract's ValueError. (general with W=None happens to raise
NumPy's own ValueError from query @ None, which the contract accepts.)"""
# item: luong_attention
# loses: concat_rejects_missing_parameters
import numpy as np


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method not in ("dot", "general", "concat"):
        raise ValueError(f"unknown method {method!r}")
    if method == "dot":
        scores = np.einsum("bd,bjd->bj", query, keys)
    elif method == "general":
        scores = np.einsum("bd,bjd->bj", query @ W, keys)
    else:
        d = query.shape[-1]
        scores = np.tanh((query @ W_c[:d])[:, None, :] + keys @ W_c[d:]) @ v
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("bj,bjv->bv", weights, values), weights
