"""A model size that the number of heads does not divide is accepted, and the head size silently rounds down.

MultiHeadAttention that never checks d_model % num_heads: d_k silently rounds down."""
# item: MultiHeadAttention
# loses: rejects_indivisible_d_model
# says: ValueError
from torch import nn

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def __init__(self, d_model, num_heads):
        nn.Module.__init__(self)
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)
