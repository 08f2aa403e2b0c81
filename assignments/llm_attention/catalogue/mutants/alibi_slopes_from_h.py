"""The slopes count the heads from zero, so the first head gets a slope of one.

m_h = 2^(-8 h / n) with h = 0 .. n-1, where the paper's sequence starts at 2^(-8 / n)."""
# item: alibi_bias
# loses: slopes_follow_the_paper, matches_definition
import numpy as np

_Base = alibi_bias


def alibi_bias(num_heads, seq_len):
    bias = _Base(num_heads, seq_len)
    distance = np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]
    slopes = 2.0 ** (-8.0 * np.arange(num_heads) / num_heads)
    return np.where(distance < 0, bias, -slopes[:, None, None] * distance)
