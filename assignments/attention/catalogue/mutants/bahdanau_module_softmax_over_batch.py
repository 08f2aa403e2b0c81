"""The softmax runs over the batch instead of over the keys.

BahdanauAttention taking the softmax over the batch (dim=0) instead of the keys."""
# item: BahdanauAttention
import torch

_Base = BahdanauAttention


class BahdanauAttention(_Base):
    def forward(self, query, keys, mask=None):
        hidden = torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))
        scores = self.v(hidden).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=0)
        context = torch.bmm(weights.unsqueeze(1), keys).squeeze(1)
        return context, weights
