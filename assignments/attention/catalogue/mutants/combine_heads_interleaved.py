"""The heads are interleaved feature by feature instead of placed one after another.

combine_heads that interleaves the heads (transpose(0, 2, 3, 1)): feature j*H + h instead of h*d_k + j."""
# item: combine_heads
# loses: head_order_preserved
# says: do not hold head
import numpy as np


def combine_heads(x):
    B, H, L, d_k = x.shape
    return x.transpose(0, 2, 3, 1).reshape(B, L, H * d_k)
