"""In the general score the matrix W is applied to the keys instead of the query.

luong_attention's general score with W applied to the keys, (keys @ W) . query: that is
query @ W^T . keys, the transposed W (the chatbot and practical-pytorch tutorials' order)."""
# item: luong_attention
# loses: general_matches_definition, general_worked_example
import numpy as np


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method not in ("dot", "general", "concat"):
        raise ValueError(f"unknown method {method!r}")
    if method == "dot":
        scores = np.einsum("bd,bjd->bj", query, keys)
    elif method == "general":
        if W is None:
            raise ValueError("the general score needs W")
        scores = np.einsum("bd,bjd->bj", query, keys @ W)
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
