"""A model size that the number of heads does not divide is accepted and the leftover features are dropped, instead of being refused.

split_heads that drops the leftover features instead of raising when d_model % H != 0."""
# item: split_heads
# loses: rejects_indivisible_d_model
# says: returned a result
import numpy as np


def split_heads(x, num_heads):
    B, L, d_model = x.shape
    d_k = d_model // num_heads
    x = x[..., : num_heads * d_k]
    return x.reshape(B, L, num_heads, d_k).transpose(0, 2, 1, 3)
