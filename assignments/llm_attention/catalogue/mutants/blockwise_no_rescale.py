"""The running sums are not rescaled when the running maximum grows.

The running maximum is kept, but the sum of exponentials and the weighted sum of values are not
multiplied by exp(m_old - m_new): earlier blocks keep the weight of a smaller maximum."""
# item: blockwise_attention
# loses: matches_attention, same_for_every_block_size
import math

import numpy as np


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    scale = 1.0 / math.sqrt(Q.shape[-1])
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full(lead + (Q.shape[-2], 1), -np.inf)
    total = np.zeros(lead + (Q.shape[-2], 1))
    acc = np.zeros(lead + (Q.shape[-2], V.shape[-1]))
    for start in range(0, K.shape[-2], block_size):
        scores = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * scale
        if mask is not None:
            mask = np.asarray(mask)
            part = mask if mask.shape[-1] == 1 else mask[..., start:start + block_size]
            scores = np.where(part, scores, -np.inf)
        m = np.maximum(m, scores.max(axis=-1, keepdims=True))
        shift = np.where(np.isfinite(m), m, 0.0)
        weights = np.exp(scores - shift)
        total = total + weights.sum(axis=-1, keepdims=True)
        acc = acc + weights @ V[..., start:start + block_size, :]
    return acc / total
