"""The bias grows with the distance from the query instead of falling.

+m_h * (i - j): far keys are favoured, the opposite of ALiBi's penalty."""
# item: alibi_bias
# loses: falls_by_slope_per_step, matches_definition
import numpy as np

_Base = alibi_bias


def alibi_bias(num_heads, seq_len):
    bias = _Base(num_heads, seq_len)
    return np.where(np.isinf(bias), bias, -bias)
