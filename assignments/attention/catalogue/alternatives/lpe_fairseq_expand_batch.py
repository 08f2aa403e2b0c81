"""LearnedPositionalEmbedding that expands the positions over the batch before the lookup:
(B, L) ids, one row of 0 .. L-1 per batch entry.

Source: fairseq's LearnedPositionalEmbedding and the PyTorch tutorials' position ids
(torch.arange(L).unsqueeze(0).expand(B, L)), without fairseq's padding offset."""
# item: LearnedPositionalEmbedding
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        bsz, seq_len = x.shape[:2]
        if seq_len > self.max_len:
            raise ValueError(f"got {seq_len} positions, max_len is {self.max_len}")
        positions = torch.arange(seq_len, dtype=torch.long, device=x.device).unsqueeze(0).expand(bsz, seq_len)
        return x + self.embedding(positions)
