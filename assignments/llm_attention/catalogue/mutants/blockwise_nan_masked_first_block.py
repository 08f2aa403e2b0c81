"""A block in which a query may attend no key makes its output not a number.

The exponentials are shifted by the running maximum as it is: while a query has seen only
masked keys it is minus infinity, and minus infinity less minus infinity is NaN, which every
later block carries on."""
# item: blockwise_attention
# loses: honours_masks, masked_first_block_changes_nothing
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
    with np.errstate(invalid="ignore"):
        for start in range(0, K.shape[-2], block_size):
            scores = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * scale
            if mask is not None:
                mask = np.asarray(mask)
                part = mask if mask.shape[-1] == 1 else mask[..., start:start + block_size]
                scores = np.where(part, scores, -np.inf)
            m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
            rescale = np.exp(m - m_new)
            weights = np.exp(scores - m_new)
            total = total * rescale + weights.sum(axis=-1, keepdims=True)
            acc = acc * rescale + weights @ V[..., start:start + block_size, :]
            m = m_new
    return acc / total
