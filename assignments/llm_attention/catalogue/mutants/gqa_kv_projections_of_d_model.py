"""The key and value projections keep every feature instead of one head's worth for each shared head.

GroupedQueryAttention whose W_k and W_v map d_model to d_model, as multi-head attention's do,
and which then keeps only the first num_kv_heads heads of them."""
# item: GroupedQueryAttention
# loses: has_required_submodules
from torch import nn

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def __init__(self, d_model, num_heads, num_kv_heads):
        super().__init__(d_model, num_heads, num_kv_heads)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)

    def _heads(self, x, heads):
        return super()._heads(x[..., :heads * self.d_k], heads)
