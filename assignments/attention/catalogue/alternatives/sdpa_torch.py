"""scaled dot-product attention computed with torch (masked_fill, softmax), returned via .numpy()."""
# item: scaled_dot_product_attention
import math

import numpy as np
import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (torch.from_numpy(np.asarray(a)) for a in (Q, K, V))
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~torch.from_numpy(np.asarray(mask, dtype=bool)), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ V).numpy(), weights.numpy()
