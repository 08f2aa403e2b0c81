"""The last, shorter block of keys is left out.

The blocks start at range(0, Lk - block_size + 1, block_size): when block_size does not divide
the number of keys, the keys of the short last block are never visited."""
# item: blockwise_attention
# loses: matches_attention, same_for_every_block_size
import numpy as np

_Base = blockwise_attention


def blockwise_attention(Q, K, V, block_size, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    kept = max(block_size, K.shape[-2] - K.shape[-2] % block_size)
    if mask is not None:
        mask = np.asarray(mask)
        mask = mask if mask.shape[-1] == 1 else mask[..., :kept]
    return _Base(Q, K[..., :kept, :], V[..., :kept, :], block_size, mask)
