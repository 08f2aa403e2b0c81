"""blockwise_attention computed in float32 throughout, returned as float64: the tolerance's
case (scores near 1e3 carry 1e3 * 2^-24 there)."""
# item: blockwise_attention
import numpy as np

_Base = blockwise_attention


def blockwise_attention(Q, K, V, block_size, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    scale = np.float32(1.0) / np.sqrt(np.float32(Q.shape[-1]))
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full(lead + (Q.shape[-2], 1), -np.inf, dtype=np.float32)
    total = np.zeros(lead + (Q.shape[-2], 1), dtype=np.float32)
    acc = np.zeros(lead + (Q.shape[-2], V.shape[-1]), dtype=np.float32)
    for start in range(0, K.shape[-2], block_size):
        s = (Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2)) * scale
        if mask is not None:
            mask = np.asarray(mask)
            s = np.where(mask if mask.shape[-1] == 1 else mask[..., start:start + block_size], s, np.float32(-np.inf))
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isfinite(m_new), m_new, np.float32(0.0))
        alpha = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * alpha + p.sum(axis=-1, keepdims=True)
        acc = acc * alpha + p @ V[..., start:start + block_size, :]
        m = m_new
    return (acc / total).astype(np.float64)
