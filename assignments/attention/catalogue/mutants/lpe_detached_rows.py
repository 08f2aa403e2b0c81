"""The looked-up position rows are detached, so no gradient trains the table.

LearnedPositionalEmbedding that adds embedding(positions).detach(): the output is right, the
table never learns."""
# item: LearnedPositionalEmbedding
# loses: gradients_reach_x_and_the_used_rows
import torch

_Base = LearnedPositionalEmbedding


class LearnedPositionalEmbedding(_Base):
    def forward(self, x):
        seq_len = x.size(1)
        if seq_len > self.embedding.num_embeddings:
            raise ValueError("sequence too long")
        positions = torch.arange(seq_len, device=x.device)
        return x + self.embedding(positions).detach()
