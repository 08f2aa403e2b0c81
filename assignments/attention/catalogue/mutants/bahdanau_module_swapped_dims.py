"""The linear layers are built with their input and output sizes swapped.

BahdanauAttention built as Linear(attn_dim, query_dim): in and out features swapped
(it only runs when the dimensions happen to coincide)."""
# item: BahdanauAttention
from torch import nn

_Base = BahdanauAttention


class BahdanauAttention(_Base):
    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__(query_dim, key_dim, attn_dim)
        self.W_q = nn.Linear(attn_dim, query_dim, bias=False)
