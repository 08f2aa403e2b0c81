"""d2l.ai's PositionalEncoding table in NumPy: float32 positions divided by
10000 ** (arange(0, d, 2) / d) in float32, sin and cos written into the even and odd
columns of P. An odd d_model makes the cos assignment fail to broadcast, which numpy
reports as ValueError, as the contract asks."""
# item: positional_encoding
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# self-attention-and-positional-encoding.md, PositionalEncoding.__init__:
#     X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(10000,
#         torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
#     self.P[:, :, 0::2] = torch.sin(X); self.P[:, :, 1::2] = torch.cos(X)
# Ported to NumPy; returns P[0], the (max_len, d_model) table, in float32.
import numpy as np


def positional_encoding(max_len, num_hiddens):
    P = np.zeros((1, max_len, num_hiddens), dtype=np.float32)
    X = np.arange(max_len, dtype=np.float32).reshape(-1, 1) / np.power(
        10000, np.arange(0, num_hiddens, 2, dtype=np.float32) / num_hiddens)
    P[:, :, 0::2] = np.sin(X)
    P[:, :, 1::2] = np.cos(X)
    return P[0]
