"""d2l.ai's transpose_qkv in NumPy, stopped before it folds the heads into the batch: reshape
(B, L, H, -1), permute (0, 2, 1, 3). An indivisible d_model makes numpy's reshape raise
ValueError, as the contract asks."""
# item: split_heads
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# multihead-attention.md, transpose_qkv (its last line, reshape(-1, L, d_k), is left out: the
# contract keeps the head axis).
import numpy as np


def split_heads(X, num_heads):
    """Transposition for parallel computation of multiple attention heads."""
    X = np.asarray(X)
    # Shape of output X: (batch_size, no. of queries or key-value pairs, num_heads,
    # num_hiddens / num_heads)
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    # Shape of output X: (batch_size, num_heads, no. of queries or key-value pairs,
    # num_hiddens / num_heads)
    return X.transpose(0, 2, 1, 3)
