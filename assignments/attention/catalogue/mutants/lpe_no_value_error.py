"""A sequence longer than the table is not refused with a ValueError.

LearnedPositionalEmbedding without the length check: nn.Embedding then raises an IndexError
(index out of range in self), not the contract's ValueError."""
# item: LearnedPositionalEmbedding
# loses: rejects_sequences_past_max_len
import torch

_Base = LearnedPositionalEmbedding


class LearnedPositionalEmbedding(_Base):
    def forward(self, x):
        positions = torch.arange(x.size(1), device=x.device)
        return x + self.embedding(positions)
