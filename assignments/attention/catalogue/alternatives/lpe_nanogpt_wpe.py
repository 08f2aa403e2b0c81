"""LearnedPositionalEmbedding as nanoGPT adds its position embedding: pos = arange(0, t),
pos_emb = wpe(pos) of shape (t, n_embd), broadcast over the batch.

Source: karpathy/nanoGPT, model.py, GPT.forward (assert replaced by the contract's ValueError)."""
# item: LearnedPositionalEmbedding
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.block_size = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        device = x.device
        b, t, _ = x.size()
        if t > self.block_size:
            raise ValueError(f"Cannot forward sequence of length {t}, block size is only {self.block_size}")
        pos = torch.arange(0, t, dtype=torch.long, device=device)  # shape (t)
        pos_emb = self.embedding(pos)  # position embeddings of shape (t, n_embd)
        return x + pos_emb
