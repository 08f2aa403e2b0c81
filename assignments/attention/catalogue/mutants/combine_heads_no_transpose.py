"""The heads are reshaped back without first moving the head axis next to the features, so positions and heads are mixed.

combine_heads with a plain reshape to (B, L, H*d_k) and no transpose."""
# item: combine_heads
# loses: inverts_split_heads
# says: undo split_heads
import numpy as np


def combine_heads(x):
    B, H, L, d_k = x.shape
    return x.reshape(B, L, H * d_k)
