"""The future keys get a bias of zero instead of minus infinity.

The bias is not causal: a key after the query gets weight, and the most of any, since its bias
is the largest of the row."""
# item: alibi_bias
# loses: future_gets_zero_weight
import numpy as np

_Base = alibi_bias


def alibi_bias(num_heads, seq_len):
    bias = _Base(num_heads, seq_len)
    return np.where(np.isinf(bias), 0.0, bias)
