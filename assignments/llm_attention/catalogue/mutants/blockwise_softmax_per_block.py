"""Each block gets a softmax of its own, and the blocks' outputs are averaged.

Attention within each block of keys, then the mean over blocks: right only when there is one
block, or when every block's sum of exponentials happens to be the same."""
# item: blockwise_attention
# loses: matches_attention, same_for_every_block_size
import math

import numpy as np


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    outputs = []
    for start in range(0, K.shape[-2], block_size):
        scores = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) / math.sqrt(Q.shape[-1])
        if mask is not None:
            mask = np.asarray(mask)
            part = mask if mask.shape[-1] == 1 else mask[..., start:start + block_size]
            scores = np.where(part, scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = weights / weights.sum(axis=-1, keepdims=True)
        outputs.append(weights @ V[..., start:start + block_size, :])
    return np.mean(outputs, axis=0)
