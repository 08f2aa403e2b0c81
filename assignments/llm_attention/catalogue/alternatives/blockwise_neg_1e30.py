"""blockwise_attention with masked scores set to a large finite negative number, as many
tutorials mask: a fully masked first block then holds weights of its own for a while, and the
first block with an allowed key rescales them to exactly 0 (exp of about -1e30)."""
# item: blockwise_attention
import math

import numpy as np


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full(lead + (Q.shape[-2], 1), -1e30)
    total = np.zeros(lead + (Q.shape[-2], 1))
    acc = np.zeros(lead + (Q.shape[-2], V.shape[-1]))
    for start in range(0, K.shape[-2], block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) / math.sqrt(Q.shape[-1])
        if mask is not None:
            mask = np.asarray(mask)
            s = np.where(mask if mask.shape[-1] == 1 else mask[..., start:start + block_size], s, -1e30)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        alpha = np.exp(m - m_new)
        p = np.exp(s - m_new)
        total = alpha * total + p.sum(axis=-1, keepdims=True)
        acc = alpha * acc + p @ V[..., start:start + block_size, :]
        m = m_new
    return acc / total
