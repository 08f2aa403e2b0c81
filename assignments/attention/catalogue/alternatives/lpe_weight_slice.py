"""LearnedPositionalEmbedding that slices the embedding's weight instead of looking rows up:
weight[:L] is embedding(arange(L)), with the same gradient (rows L.. unused).

Source: the slicing idiom of ViT-style code (x + self.pos_embedding[:, :n]), kept on the
contract's nn.Embedding."""
# item: LearnedPositionalEmbedding
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        n = x.shape[1]
        if n > self.embedding.weight.shape[0]:
            raise ValueError("too many positions")
        return x + self.embedding.weight[:n].unsqueeze(0)
