"""The causal mask built the way PyTorch's generate_square_subsequent_mask builds its
blocked part, triu(..., diagonal=1) (the future), turned into the contract's bool
"may attend" by negating it."""
# item: causal_mask
# Source: PyTorch, torch/nn/modules/transformer.py, Transformer.generate_square_subsequent_mask:
#     torch.triu(torch.full((sz, sz), float("-inf")), diagonal=1)
# with the -inf/0 float values replaced by bool (see the mutant
# causal_mask_pytorch_square_subsequent) and negated: True where the key is not in the future.
import numpy as np


def causal_mask(sz):
    return ~np.triu(np.full((sz, sz), True), k=1)
