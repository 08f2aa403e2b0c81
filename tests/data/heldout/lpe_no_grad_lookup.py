"""The rows looked up under torch.no_grad(): the output is right and the table never learns
(the catalogue's mistake is a .detach(), this is the same idea written another way)."""
# item: LearnedPositionalEmbedding
# expect: lpe_detached_rows
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        if x.size(1) > self.embedding.num_embeddings:
            raise ValueError("too long")
        with torch.no_grad():
            table = self.embedding(torch.arange(x.size(1), device=x.device))
        return x + table
