"""blockwise_attention with a running log-sum-exp: the output kept normalised after every
block, reweighted by exp(lse_old - lse_new) (FlashAttention-2's backward and the Triton
tutorial keep the log-sum-exp in this way)."""
# item: blockwise_attention
import math

import numpy as np


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be positive")
    scale = 1.0 / math.sqrt(Q.shape[-1])
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    lse = np.full(lead + (Q.shape[-2], 1), -np.inf)
    out = np.zeros(lead + (Q.shape[-2], V.shape[-1]))
    for start in range(0, K.shape[-2], block_size):
        stop = start + block_size
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * scale
        if mask is not None:
            mask = np.asarray(mask)
            s = np.where(mask if mask.shape[-1] == 1 else mask[..., start:stop], s, -np.inf)
        top = np.maximum(lse, s.max(axis=-1, keepdims=True))
        safe = np.where(np.isfinite(top), top, 0.0)
        block_lse = safe + np.log(np.exp(lse - safe) + np.exp(s - safe).sum(axis=-1, keepdims=True))
        new_safe = np.where(np.isfinite(block_lse), block_lse, 0.0)
        out = out * np.exp(lse - new_safe) + np.exp(s - new_safe) @ V[..., start:stop, :]
        lse = block_lse
    return out
