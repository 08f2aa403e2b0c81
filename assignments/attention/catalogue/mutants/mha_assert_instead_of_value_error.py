"""A model size that the number of heads does not divide is refused with an assertion rather than a ValueError.

MultiHeadAttention that checks divisibility with assert: AssertionError, not ValueError."""
# item: MultiHeadAttention
# loses: rejects_indivisible_d_model
# says: AssertionError | ValueError
from torch import nn

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def __init__(self, d_model, num_heads):
        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
        nn.Module.__init__(self)
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)
