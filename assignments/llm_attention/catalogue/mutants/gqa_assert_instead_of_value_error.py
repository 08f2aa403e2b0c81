"""Invalid head counts are refused with an assertion instead of a value error.

GroupedQueryAttention that checks its head counts with assert, as litgpt's Config does
(`assert self.n_head % self.n_query_groups == 0`): an AssertionError, and nothing at all under
python -O."""
# item: GroupedQueryAttention
# loses: rejects_invalid_head_counts
# Source: litgpt (config.py)
from torch import nn

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def __init__(self, d_model, num_heads, num_kv_heads):
        assert num_heads >= 1 and num_kv_heads >= 1
        assert d_model % num_heads == 0
        assert num_heads % num_kv_heads == 0
        nn.Module.__init__(self)
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.d_k = d_model // num_heads
        self.group = num_heads // num_kv_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, num_kv_heads * self.d_k)
        self.W_v = nn.Linear(d_model, num_kv_heads * self.d_k)
        self.W_o = nn.Linear(d_model, d_model)
