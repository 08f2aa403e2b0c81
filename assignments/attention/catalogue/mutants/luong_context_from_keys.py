"""The context is a weighted sum of the keys, where it should weigh the values.

luong_attention whose context is the weighted sum of the keys, as in Bahdanau's exercise,
not of the values."""
# item: luong_attention
# loses: dot_output_shapes, dot_context_is_weighted_sum_of_values, general_output_shapes, concat_context_is_weighted_sum_of_values
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
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("bj,bjd->bd", weights, keys), weights
