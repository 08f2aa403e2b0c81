"""The table is a bare parameter instead of an embedding layer.

LearnedPositionalEmbedding with self.pos_embedding = nn.Parameter(torch.randn(max_len, d_model))
(ViT's style): it learns, but it is not the contract's embedding = nn.Embedding(max_len, d_model),
so the grader cannot load the table into it."""
# item: LearnedPositionalEmbedding
# loses: embedding_is_the_only_parameter
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.pos_embedding = nn.Parameter(torch.randn(max_len, d_model))

    def forward(self, x):
        seq_len = x.size(1)
        if seq_len > self.pos_embedding.size(0):
            raise ValueError("sequence too long")
        return x + self.pos_embedding[:seq_len]
