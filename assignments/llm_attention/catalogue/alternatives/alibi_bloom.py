"""alibi_bias as BLOOM builds it: the paper's slopes through closest_power_of_2 and
extra_base, the bias m_h * j (a constant per row away from -m_h * (i - j)), and the future
given the dtype's minimum, as BLOOM's causal mask does."""
# item: alibi_bias
# Source: huggingface/transformers, models/bloom/modeling_bloom.py (build_alibi_tensor; the causal mask filled with finfo.min)
import math

import numpy as np


def alibi_bias(num_heads, seq_len):
    if num_heads < 1 or seq_len < 1:
        raise ValueError("num_heads and seq_len must be positive")
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = 2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3)))
    powers = np.arange(1, 1 + closest_power_of_2)
    slopes = np.power(base, powers)
    if closest_power_of_2 != num_heads:
        extra_base = 2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3)))
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = np.arange(1, 1 + 2 * num_remaining_heads, 2)
        slopes = np.concatenate([slopes, np.power(extra_base, extra_powers)], axis=0)
    arange_tensor = np.arange(seq_len)[None, None, :]
    alibi = slopes[:, None, None] * arange_tensor
    alibi = np.broadcast_to(alibi, (num_heads, seq_len, seq_len))
    causal = np.tril(np.ones((seq_len, seq_len), dtype=bool))
    return np.where(causal, alibi, np.finfo(np.float64).min)
