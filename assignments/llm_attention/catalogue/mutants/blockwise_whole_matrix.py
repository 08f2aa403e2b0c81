"""The whole score matrix is built at once instead of visiting the keys block by block.

softmax(Q K^T / sqrt(d_k)) V on every key together: the right numbers, but it holds the (Lq, Lk)
scores that the blocks exist to avoid. Written in place (one matrix, not three), as a careful
student would: the diagnosis replays it in the grader within its time limit."""
# item: blockwise_attention
# loses: never_holds_the_score_matrix
import math

import numpy as np


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    scores = Q @ np.swapaxes(K, -1, -2)
    scores /= math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores @ V
