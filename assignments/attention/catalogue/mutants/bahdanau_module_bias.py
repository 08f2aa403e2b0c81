"""The query and score projections carry a bias term, which the definition's layers do not have.

BahdanauAttention whose W_q and v are nn.Linear with the default bias=True."""
# item: BahdanauAttention
# loses: has_required_submodules
# says: W_q | bias=False
from torch import nn

_Base = BahdanauAttention


class BahdanauAttention(_Base):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__(query_dim, key_dim, attn_dim)
        self.W_q = nn.Linear(query_dim, attn_dim)
        self.v = nn.Linear(attn_dim, 1)
