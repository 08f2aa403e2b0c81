"""d2l.ai's transpose_output in NumPy, from (B, H, L, d_k) (its first reshape unfolds
(B * H, L, d_k), which the contract's input already is): permute (0, 2, 1, 3), reshape
(B, L, -1)."""
# item: combine_heads
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# multihead-attention.md, transpose_output.
import numpy as np


def combine_heads(X):
    """Reverse the operation of transpose_qkv."""
    X = np.asarray(X).transpose(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)
