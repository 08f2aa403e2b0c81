"""The scores are not divided by √d_k before the softmax.

MultiHeadAttention without the 1/sqrt(d_k) scale of the scores."""
# item: MultiHeadAttention
import torch

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def forward(self, query, key, value, mask=None):
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        scores = q @ k.transpose(-2, -1)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.combine_heads(weights @ v)), weights
