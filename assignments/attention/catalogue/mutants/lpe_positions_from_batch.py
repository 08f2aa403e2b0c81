"""The positions are counted along the batch instead of along the sequence.

LearnedPositionalEmbedding that builds torch.arange(x.size(0)): batch entry b gets row b at
every position, instead of rows 0 .. L-1 for every entry."""
# item: LearnedPositionalEmbedding
# loses: adds_the_rows_of_the_positions
import torch

_Base = LearnedPositionalEmbedding


class LearnedPositionalEmbedding(_Base):
    def forward(self, x):
        if x.size(1) > self.embedding.num_embeddings:
            raise ValueError("sequence too long")
        positions = torch.arange(x.size(0), device=x.device)
        return x + self.embedding(positions).unsqueeze(1)
