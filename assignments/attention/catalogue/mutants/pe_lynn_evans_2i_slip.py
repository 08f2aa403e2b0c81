"""The exponent doubles a column index that already steps by two, and the cosine columns use a different frequency from their sine partners.

The positional encoder of "How to code The Transformer in PyTorch": i already steps by 2
over the columns and the exponent doubles it again (2 * i / d_model), and the cos column uses
2 * (i + 1), a different frequency from its sin partner."""
# item: positional_encoding
# loses: matches_formula, sin_on_even_cos_on_odd
# Source: Samuel Lynn-Evans, "How to code The Transformer in PyTorch" (Towards Data Science,
# 2018), PositionalEncoder.__init__:
#     for pos in range(max_seq_len):
#         for i in range(0, d_model, 2):
#             pe[pos, i] = math.sin(pos / (10000 ** ((2 * i)/d_model)))
#             pe[pos, i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1))/d_model)))
# Ported to a NumPy table (torch.zeros -> np.zeros); the odd-d_model check is the contract's.
import math

import numpy as np


def positional_encoding(max_seq_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    pe = np.zeros((max_seq_len, d_model))
    for pos in range(max_seq_len):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / (10000 ** ((2 * i) / d_model)))
            pe[pos, i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1)) / d_model)))
    return pe
