"""luong_attention with explicit Python loops over the batch and the keys: one score at a time,
the concatenation built for each (query, key) pair, a stable softmax by hand."""
# item: luong_attention
import numpy as np


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method not in ("dot", "general", "concat"):
        raise ValueError("method must be dot, general or concat")
    if (method == "general" and W is None) or (method == "concat" and (W_c is None or v is None)):
        raise ValueError(f"missing parameters for {method}")
    batch, n_keys = keys.shape[0], keys.shape[1]
    context = np.zeros((batch, values.shape[2]))
    weights = np.zeros((batch, n_keys))
    for b in range(batch):
        scores = []
        for j in range(n_keys):
            if method == "dot":
                score = float(np.dot(query[b], keys[b, j]))
            elif method == "general":
                score = float(np.dot(query[b] @ W, keys[b, j]))
            else:
                pair = np.concatenate([query[b], keys[b, j]])
                score = float(np.dot(v, np.tanh(pair @ W_c)))
            scores.append(score)
        allowed = [mask is None or bool(mask[b, j]) for j in range(n_keys)]
        top = max(s for s, ok in zip(scores, allowed) if ok)
        exps = [np.exp(s - top) if ok else 0.0 for s, ok in zip(scores, allowed)]
        total = sum(exps)
        for j in range(n_keys):
            weights[b, j] = exps[j] / total
            context[b] += weights[b, j] * values[b, j]
    return context, weights
