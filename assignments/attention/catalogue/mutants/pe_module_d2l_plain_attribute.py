"""The table is stored as a plain attribute, not as a registered buffer, so it is not part of the module's state.

d2l.ai's PositionalEncoding as it is (the table named pe): a plain tensor attribute, not a
buffer (not in state_dict, does not follow .to()), and max_len defaults to 1000."""
# item: PositionalEncoding
# loses: pe_is_a_buffer, default_max_len
# Source: Dive into Deep Learning (d2l-ai/d2l-en), chapter_attention-mechanisms-and-transformers/
# self-attention-and-positional-encoding.md, PositionalEncoding: `self.P = torch.zeros((1,
# max_len, num_hiddens))`, `max_len=1000`. Renamed P -> pe, no dropout; nothing else changed.
import torch
from torch import nn


class PositionalEncoding(nn.Module):
    """Positional encoding."""

    def __init__(self, num_hiddens, max_len=1000):
        super().__init__()
        # Create a long enough P
        self.pe = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.pe[:, :, 0::2] = torch.sin(X)
        self.pe[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        return X + self.pe[:, :X.shape[1], :].to(X.device)
