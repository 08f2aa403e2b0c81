"""d2l.ai's PositionalEncoding with the table kept as the contract asks: the same float32
table (float32 positions / torch.pow(10000, arange(0, d, 2) / d)), registered as a buffer
named pe, max_len 5000."""
# item: PositionalEncoding
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# self-attention-and-positional-encoding.md, PositionalEncoding. d2l keeps the table in a plain
# attribute self.P with max_len=1000 (see the mutant pe_module_d2l_plain_attribute); here it is
# register_buffer("pe", P) with max_len=5000, and there is no dropout.
import torch
from torch import nn


class PositionalEncoding(nn.Module):
    """Positional encoding."""

    def __init__(self, num_hiddens, max_len=5000):
        super().__init__()
        # Create a long enough P
        P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        P[:, :, 0::2] = torch.sin(X)
        P[:, :, 1::2] = torch.cos(X)
        self.register_buffer("pe", P)

    def forward(self, X):
        return X + self.pe[:, :X.shape[1], :].to(X.device)
