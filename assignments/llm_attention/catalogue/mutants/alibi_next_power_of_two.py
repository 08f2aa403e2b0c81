"""For a head count that is not a power of two, the slopes are the first ones of the next power of two.

get_slopes_power_of_2(2^ceil(log2 n))[:n]: for n = 12, the slopes of 16 heads, cut to 12."""
# item: alibi_bias
# loses: slopes_follow_the_paper, matches_definition
import math

import numpy as np

_Base = alibi_bias


def alibi_bias(num_heads, seq_len):
    bias = _Base(num_heads, seq_len)
    n = 2 ** math.ceil(math.log2(num_heads)) if num_heads > 0 else num_heads
    slopes = np.array([2.0 ** (-8.0 * (h + 1) / n) for h in range(num_heads)])
    distance = np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]
    return np.where(distance < 0, bias, -slopes[:, None, None] * distance)
