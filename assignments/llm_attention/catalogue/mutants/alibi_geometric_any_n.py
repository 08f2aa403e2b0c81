"""For a head count that is not a power of two, the slopes are a plain geometric sequence instead of the paper's rule.

m_h = 2^(-8 (h + 1) / n) for every n: the paper's formula for powers of two, applied where
get_slopes interleaves the slopes of two powers of two."""
# item: alibi_bias
# loses: slopes_follow_the_paper, matches_definition
import numpy as np

_Base = alibi_bias


def alibi_bias(num_heads, seq_len):
    bias = _Base(num_heads, seq_len)
    slopes = 2.0 ** (-8.0 * (np.arange(num_heads) + 1) / num_heads)
    distance = np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]
    return np.where(distance < 0, bias, -slopes[:, None, None] * distance)
