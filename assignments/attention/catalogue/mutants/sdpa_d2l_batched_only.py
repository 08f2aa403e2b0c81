"""The keys are transposed in a way that assumes exactly one batch axis, so inputs with none or several go wrong.

d2l.ai's DotProductAttention with its batch-only transpose: keys.transpose(1, 2) (and bmm)
need exactly one batch axis, so unbatched (Lq, d_k) input fails and two batch axes swap the
wrong ones."""
# item: scaled_dot_product_attention
# loses: output_and_weight_shapes, matches_definition, leading_batch_dims
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# attention-scoring-functions.md, DotProductAttention.forward:
#     scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
# Ported to NumPy with np.swapaxes(keys, 1, 2) for keys.transpose(1, 2); otherwise as the
# alternative sdpa_d2l_masked_softmax.
import math

import numpy as np


def masked_softmax(X, mask):
    if mask is not None:
        X = np.where(mask, X, -1e6)
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scaled_dot_product_attention(queries, keys, values, mask=None):
    d = queries.shape[-1]
    scores = queries @ np.swapaxes(keys, 1, 2) / math.sqrt(d)
    attention_weights = masked_softmax(scores, mask)
    return attention_weights @ values, attention_weights
