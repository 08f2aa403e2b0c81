"""An assert for the length instead of the ValueError (nanoGPT's own check, kept unchanged)."""
# item: LearnedPositionalEmbedding
# expect: none
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        t = x.size(1)
        assert t <= self.embedding.num_embeddings, f"Cannot forward sequence of length {t}"
        return x + self.embedding(torch.arange(t, device=x.device))
