"""The features are dealt out to the heads in turn instead of in consecutive blocks.

split_heads that deals features out round-robin (head h gets features h, h+H, ...)."""
# item: split_heads
# loses: head_holds_its_features
# says: does not hold features
import numpy as np


def split_heads(x, num_heads):
    B, L, d_model = x.shape
    if d_model % num_heads != 0:
        raise ValueError("d_model must be divisible by num_heads")
    return x.reshape(B, L, d_model // num_heads, num_heads).transpose(0, 3, 1, 2)
