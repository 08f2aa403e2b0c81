"""scaled dot-product attention with explicit loops over batch index, query and key."""
# item: scaled_dot_product_attention
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Lq, d_k = Q.shape[-2:]
    Lk, d_v = V.shape[-2:]
    full = np.ones((Lq, Lk), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    full = np.broadcast_to(full, lead + (Lq, Lk))
    Qb = np.broadcast_to(Q, lead + (Lq, d_k))
    Kb = np.broadcast_to(K, lead + (Lk, d_k))
    Vb = np.broadcast_to(V, lead + (Lk, d_v))
    weights = np.zeros(lead + (Lq, Lk))
    output = np.zeros(lead + (Lq, d_v))
    for index in np.ndindex(*lead):
        for i in range(Lq):
            scores = [float(Qb[index][i] @ Kb[index][j]) / math.sqrt(d_k) if full[index][i, j]
                      else -math.inf for j in range(Lk)]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps)
            for j in range(Lk):
                weights[index][i, j] = exps[j] / total
                output[index][i] += weights[index][i, j] * Vb[index][j]
    return output, weights
