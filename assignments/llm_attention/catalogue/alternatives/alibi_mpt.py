"""alibi_bias as MPT builds it: gen_slopes with alibi_bias_max = 8 (for a head count that is
not a power of two, the slopes of the next power of two, odd ones first, which is the paper's
rule), the bias m_h * (j - (L - 1)), a constant per row away from the definition, and -inf for
the future."""
# item: alibi_bias
# Source: mosaicml/llm-foundry, llmfoundry/models/layers/attention.py (gen_slopes, build_alibi_bias)
import math

import numpy as np


def alibi_bias(num_heads, seq_len):
    if num_heads < 1 or seq_len < 1:
        raise ValueError("num_heads and seq_len must be positive")
    alibi_bias_max = 8
    _n_heads = 2 ** math.ceil(math.log2(num_heads))
    m = np.arange(1, _n_heads + 1, dtype=np.float64) * (alibi_bias_max / _n_heads)
    slopes = 1.0 / np.power(2, m)
    if _n_heads != num_heads:
        slopes = np.concatenate([slopes[1::2], slopes[::2]])[:num_heads]
    bias = np.arange(1 - seq_len, 1, dtype=np.float64).reshape(1, 1, seq_len) * slopes.reshape(num_heads, 1, 1)
    bias = np.broadcast_to(bias, (num_heads, seq_len, seq_len))
    future = np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)
    return np.where(future, -np.inf, bias)
