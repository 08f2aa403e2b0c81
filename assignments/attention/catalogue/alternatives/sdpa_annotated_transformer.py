"""The Annotated Transformer's attention() in NumPy: scores / math.sqrt(d_k), masked_fill
(mask == 0, -1e9) (its mask is already 1 = may attend), softmax over the last axis."""
# item: scaled_dot_product_attention
# Source: The Annotated Transformer (harvardnlp/annotated-transformer,
# the_annotated_transformer.py), attention():
#     d_k = query.size(-1)
#     scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
#     if mask is not None:
#         scores = scores.masked_fill(mask == 0, -1e9)
#     p_attn = scores.softmax(dim=-1)
#     return torch.matmul(p_attn, value), p_attn
# Ported to NumPy (torch.matmul -> @, transpose(-2, -1) -> swapaxes, masked_fill -> where,
# the softmax written out); the dropout argument is left out (the contract has none).
import math

import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    p_attn = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p_attn = p_attn / p_attn.sum(axis=-1, keepdims=True)
    return np.matmul(p_attn, V), p_attn
