"""nanoGPT's causal mask: a tril of ones registered once for the longest block, viewed as
(1, 1, block_size, block_size) and sliced to [:T, :T]; the port returns the slice != 0 (its
ones are "may attend", as in the contract)."""
# item: causal_mask
# Source: nanoGPT (karpathy/nanoGPT, model.py), CausalSelfAttention.__init__:
#     self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
#                                  .view(1, 1, config.block_size, config.block_size))
# and forward: att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf')).
import numpy as np

_block_size = 1024
_bias = np.tril(np.ones((_block_size, _block_size))).reshape(1, 1, _block_size, _block_size)


def causal_mask(T):
    return _bias[0, 0, :T, :T] != 0
