"""With no mask the module is causal instead of attending to every position.

GroupedQueryAttention whose forward applies a causal mask when given none, as litgpt's and
torchtune's attention layers do for a language model; the contract's module is causal only when
given a causal mask."""
# item: GroupedQueryAttention
# loses: not_causal_without_mask
# says: as if the module were causal
# Source: litgpt (CausalSelfAttention: mask None -> is_causal=True), torchtune (MultiHeadAttention)
import torch

_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def forward(self, x, mask=None):
        if mask is None:
            length = x.shape[1]
            mask = torch.tril(torch.ones(length, length, dtype=torch.bool, device=x.device))
        return super().forward(x, mask)
