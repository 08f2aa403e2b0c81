"""The context is computed outside PyTorch and converted back, so its values are right but no gradient flows through it.

BahdanauAttention that computes the context through NumPy and back: the values are right
but the context is cut off from autograd (only the weights carry gradients)."""
# item: BahdanauAttention
import torch

_Base = BahdanauAttention


class BahdanauAttention(_Base):
    def forward(self, query, keys, mask=None):
        _, weights = super().forward(query, keys, mask)
        w = weights.detach().numpy()
        k = keys.detach().numpy()
        context = torch.from_numpy((w[:, :, None] * k).sum(axis=1))
        return context, weights
