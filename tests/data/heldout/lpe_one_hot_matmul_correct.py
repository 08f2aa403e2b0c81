"""A LearnedPositionalEmbedding that looks the rows up as a one-hot matrix times the table:
correct (the same sum, the same gradient). Not in the catalogue."""
# item: LearnedPositionalEmbedding
# expect: correct
import torch
from torch import nn
from torch.nn import functional as F


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        length = x.shape[-2]
        if length > self.embedding.weight.shape[0]:
            raise ValueError(f"{length} positions, but only {self.embedding.weight.shape[0]} rows")
        one_hot = F.one_hot(torch.arange(length, device=x.device), self.embedding.weight.shape[0])
        return x + one_hot.to(self.embedding.weight.dtype) @ self.embedding.weight
