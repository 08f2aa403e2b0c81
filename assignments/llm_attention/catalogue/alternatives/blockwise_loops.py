"""blockwise_attention with a Python loop over the blocks of keys, each query's running
maximum, sum and accumulator updated in a loop of its own (2-D inputs, leading dimensions
through np.ndindex)."""
# item: blockwise_attention
import math

import numpy as np


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be >= 1")
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Lq, Lk = Q.shape[-2], K.shape[-2]
    Q, K, V = (np.broadcast_to(a, lead + a.shape[-2:]) for a in (Q, K, V))
    full = None if mask is None else np.broadcast_to(mask, lead + (Lq, Lk))
    out = np.zeros(lead + (Lq, V.shape[-1]))
    for index in np.ndindex(*lead):
        for q in range(Lq):
            m, l, acc = -math.inf, 0.0, np.zeros(V.shape[-1])
            for start in range(0, Lk, block_size):
                stop = min(start + block_size, Lk)
                s = K[index][start:stop] @ Q[index][q] / math.sqrt(Q.shape[-1])
                if full is not None:
                    s = np.where(full[index][q, start:stop], s, -math.inf)
                new = max(m, float(s.max()))
                if new == -math.inf:
                    continue
                p = np.exp(s - new)
                l = l * math.exp(m - new) + p.sum()
                acc = acc * math.exp(m - new) + p @ V[index][start:stop]
                m = new
            out[index][q] = acc / l
    return out
