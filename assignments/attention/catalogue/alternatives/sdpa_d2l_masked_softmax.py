"""d2l.ai's DotProductAttention and masked_softmax in NumPy: scores / math.sqrt(d),
masked scores set to -1e6 (exp underflows to an exact 0), softmax, a matmul with the values."""
# item: scaled_dot_product_attention
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# attention-scoring-functions.md, masked_softmax and DotProductAttention.forward:
#     d = queries.shape[-1]
#     scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
#     self.attention_weights = masked_softmax(scores, valid_lens)
#     return torch.bmm(self.dropout(self.attention_weights), values)
# Changes for the contract: the last two axes are swapped whatever the batch axes
# (keys.transpose(1, 2) and bmm need exactly one: see the mutant sdpa_d2l_batched_only); the
# bool mask instead of valid_lens; no dropout; the weights returned too.
import math

import numpy as np


def masked_softmax(X, mask):
    """Perform softmax operation by masking elements on the last axis."""
    if mask is not None:
        # On the last axis, replace masked elements with a very large negative
        # value, whose exponentiation outputs 0
        X = np.where(mask, X, -1e6)
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scaled_dot_product_attention(queries, keys, values, mask=None):
    d = queries.shape[-1]
    scores = queries @ np.swapaxes(keys, -1, -2) / math.sqrt(d)
    attention_weights = masked_softmax(scores, mask)
    return attention_weights @ values, attention_weights
