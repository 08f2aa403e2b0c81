"""The heads are split by a reshape alone, without moving the head axis, so each head mixes positions.

split_heads with a reshape straight to (B, H, L, d_k) and no transpose: heads mix positions."""
# item: split_heads
# loses: head_holds_its_features
# says: does not hold features
import numpy as np


def split_heads(x, num_heads):
    B, L, d_model = x.shape
    if d_model % num_heads != 0:
        raise ValueError("d_model must be divisible by num_heads")
    return x.reshape(B, num_heads, L, d_model // num_heads)
