"""alibi_bias with Python loops: the paper's get_slopes as its repository writes it, and the
bias filled entry by entry."""
# item: alibi_bias
# Source: ofirpress/attention_with_linear_biases, fairseq/models/transformer.py (get_slopes)
import math

import numpy as np


def alibi_bias(num_heads, seq_len):
    if num_heads < 1 or seq_len < 1:
        raise ValueError("bad sizes")

    def get_slopes(n):
        def get_slopes_power_of_2(n):
            start = 2 ** (-2 ** -(math.log2(n) - 3))
            ratio = start
            return [start * ratio ** i for i in range(n)]

        if math.log2(n).is_integer():
            return get_slopes_power_of_2(n)
        closest_power_of_2 = 2 ** math.floor(math.log2(n))
        return get_slopes_power_of_2(closest_power_of_2) + get_slopes(2 * closest_power_of_2)[0::2][:n - closest_power_of_2]

    slopes = get_slopes(num_heads)
    bias = np.zeros((num_heads, seq_len, seq_len))
    for h in range(num_heads):
        for i in range(seq_len):
            for j in range(seq_len):
                bias[h, i, j] = -slopes[h] * (i - j) if j <= i else -math.inf
    return bias
