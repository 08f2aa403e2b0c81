"""Positions 1 .. L, clamped so that max_len positions do not index past the table: the
classic off-by-one, written differently from the catalogue's."""
# item: LearnedPositionalEmbedding
# expect: lpe_positions_from_one
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        if x.size(1) > self.embedding.num_embeddings:
            raise ValueError("too long")
        pos = (torch.arange(x.size(1), device=x.device) + 1).clamp(max=self.embedding.num_embeddings - 1)
        return x + self.embedding(pos)[None]
