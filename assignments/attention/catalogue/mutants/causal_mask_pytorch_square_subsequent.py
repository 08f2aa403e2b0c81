"""The causal mask is an additive mask of numbers, minus infinity where blocked, as PyTorch's Transformer builds it, rather than a boolean mask where True means may attend.

PyTorch's nn.Transformer.generate_square_subsequent_mask as a causal mask: a float
additive mask, -inf above the diagonal and 0 elsewhere, not the contract's bool True = may
attend (its 0 is the allowed value)."""
# item: causal_mask
# loses: bool_square_shape, allows_past_and_self, blocks_future
# Source: PyTorch, torch/nn/modules/transformer.py, Transformer.generate_square_subsequent_mask
# (also in the nn.Transformer tutorial):
#     return torch.triu(torch.full((sz, sz), float("-inf")), diagonal=1)
import numpy as np


def causal_mask(sz):
    return np.triu(np.full((sz, sz), float("-inf")), k=1)
