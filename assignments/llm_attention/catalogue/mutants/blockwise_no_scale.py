"""The scores are not divided by the square root of the key size.

softmax(Q K^T) V, blockwise: the online softmax is right, the scale is missing."""
# item: blockwise_attention
# loses: matches_attention
import math

_Base = blockwise_attention


def blockwise_attention(Q, K, V, block_size, mask=None):
    return _Base(Q * math.sqrt(Q.shape[-1]), K, V, block_size, mask)
