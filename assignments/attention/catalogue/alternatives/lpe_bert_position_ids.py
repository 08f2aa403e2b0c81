"""LearnedPositionalEmbedding in the style of BERT's embeddings: a buffer of position ids
(1, max_len), sliced to the sequence and looked up.

Source: Hugging Face transformers, BertEmbeddings (position_ids registered with
register_buffer(..., persistent=False), position_embeddings = nn.Embedding)."""
# item: LearnedPositionalEmbedding
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)
        self.register_buffer("position_ids", torch.arange(max_len).expand((1, -1)), persistent=False)

    def forward(self, x):
        seq_length = x.size(1)
        if seq_length > self.position_ids.size(1):
            raise ValueError(f"sequence length {seq_length} is longer than max_len")
        position_ids = self.position_ids[:, :seq_length].to(x.device)
        return x + self.embedding(position_ids)
