"""The scores are detached from the computation graph, so no gradient reaches the query or the layers' weights.

A detached BahdanauAttention: the scores are detached, so no gradient reaches the query
or the weights W_q, W_k, v (the forward values are right)."""
# item: BahdanauAttention
# loses: gradients_flow
# says: query | no gradient flows
import torch

_Base = BahdanauAttention


class BahdanauAttention(_Base):
    def forward(self, query, keys, mask=None):
        hidden = torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))
        scores = self.v(hidden).squeeze(-1).detach()
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = torch.bmm(weights.unsqueeze(1), keys).squeeze(1)
        return context, weights
