"""The positions are counted from one instead of from zero.

LearnedPositionalEmbedding that looks up rows 1 .. L (torch.arange(1, L + 1)): row 0 is never
used, and a sequence of max_len positions indexes past the table."""
# item: LearnedPositionalEmbedding
# loses: adds_the_rows_of_the_positions, positions_start_at_zero
import torch

_Base = LearnedPositionalEmbedding


class LearnedPositionalEmbedding(_Base):
    def forward(self, x):
        seq_len = x.size(1)
        if seq_len > self.embedding.num_embeddings:
            raise ValueError("sequence too long")
        positions = torch.arange(1, seq_len + 1, device=x.device)
        return x + self.embedding(positions)
