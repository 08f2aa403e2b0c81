"""The projections have no bias term, which the definition's linear layers have.

MultiHeadAttention whose projections are Linear(d_model, d_model, bias=False)."""
# item: MultiHeadAttention
# loses: has_required_submodules
# says: W_q | bias=True
from torch import nn

_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def __init__(self, d_model, num_heads):
        super().__init__(d_model, num_heads)
        self.W_q = nn.Linear(d_model, d_model, bias=False)
        self.W_k = nn.Linear(d_model, d_model, bias=False)
        self.W_v = nn.Linear(d_model, d_model, bias=False)
        self.W_o = nn.Linear(d_model, d_model, bias=False)
