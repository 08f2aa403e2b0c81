"""Part 2 of the language-model attention assignment: grouped-query attention with a key/value
cache, as a PyTorch module.

Conventions (fixed by the assignment's contract):

* Masks are boolean and ``True`` means "may attend"; masked positions get weight exactly ``0``.
* No dropout; gradients flow to the inputs and to every parameter.
* With ``mask=None`` every position attends to every position: the module is not causal by
  default (a module that is causal when no mask is given is a known mistake).

This file imports only math and torch: the grader also runs it as if it were a student's
submission, and it appends a catalogue entry to it when it checks that its tests catch mistakes.
"""

import math

import torch
from torch import nn


class GroupedQueryAttention(nn.Module):
    """Grouped-query self-attention: ``num_heads`` query heads share ``num_kv_heads`` key/value heads.

    With ``d_k = d_model // num_heads`` and ``group = num_heads // num_kv_heads``, query head ``h``
    reads key/value head ``h // group`` (consecutive query heads share one, as
    ``repeat_interleave`` and ``scaled_dot_product_attention(..., enable_gqa=True)`` do)::

        head_h  = softmax(Q_h K_{h // group}^T / sqrt(d_k)) V_{h // group}   (masked weights 0)
        output  = W_o(concat of head_0 ... head_{H-1}, in head order)

    where head ``h`` of a projection is its features ``h*d_k ... (h+1)*d_k - 1``.

    Submodules, each ``nn.Linear`` with bias: ``W_q (d_model -> d_model)``,
    ``W_k (d_model -> num_kv_heads * d_k)``, ``W_v (d_model -> num_kv_heads * d_k)``,
    ``W_o (d_model -> d_model)``. With ``num_kv_heads == num_heads`` it is multi-head attention,
    with ``num_kv_heads == 1`` multi-query attention.

    Raises:
        ValueError: unless ``num_heads >= 1``, ``num_kv_heads >= 1``, ``d_model % num_heads == 0``
            and ``num_heads % num_kv_heads == 0``.
    """

    def __init__(self, d_model, num_heads, num_kv_heads):
        if num_heads < 1 or num_kv_heads < 1:
            raise ValueError(f"num_heads ({num_heads}) and num_kv_heads ({num_kv_heads}) must be at least 1")
        if d_model % num_heads != 0:
            raise ValueError(f"d_model ({d_model}) must be divisible by num_heads ({num_heads})")
        if num_heads % num_kv_heads != 0:
            raise ValueError(f"num_heads ({num_heads}) must be divisible by num_kv_heads ({num_kv_heads})")
        super().__init__()
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.d_k = d_model // num_heads
        self.group = num_heads // num_kv_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, num_kv_heads * self.d_k)
        self.W_v = nn.Linear(d_model, num_kv_heads * self.d_k)
        self.W_o = nn.Linear(d_model, d_model)

    def _heads(self, x, heads):
        """``(B, L, heads * d_k) -> (B, heads, L, d_k)``: head ``h`` holds its own features."""
        batch, length, _ = x.shape
        return x.reshape(batch, length, heads, self.d_k).transpose(1, 2)

    def _attend(self, q, k, v, mask):
        """Query heads ``q (B, H, Lq, d_k)`` over key/value heads ``k``, ``v (B, H_kv, Lk, d_k)``:
        ``(output (B, Lq, d_model), weights (B, H, Lq, Lk))``."""
        # Each kv head repeated for its group of consecutive query heads: head h reads h // group.
        k = k.repeat_interleave(self.group, dim=1)
        v = v.repeat_interleave(self.group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            mask = torch.as_tensor(mask, dtype=torch.bool, device=scores.device)
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        batch, _, length, _ = q.shape
        heads = (weights @ v).transpose(1, 2).reshape(batch, length, self.num_heads * self.d_k)
        return self.W_o(heads), weights

    def forward(self, x, mask=None):
        """Self-attention over ``x (B, L, d_model)``.

        Args:
            mask: optional bool tensor broadcastable to ``(B, num_heads, L, L)``; ``True`` = may
                attend. ``None`` attends to every position (not causal).

        Returns:
            ``(output, weights)``: ``(B, L, d_model)`` and the weights of every query head
            ``(B, num_heads, L, L)``.
        """
        q = self._heads(self.W_q(x), self.num_heads)
        k = self._heads(self.W_k(x), self.num_kv_heads)
        v = self._heads(self.W_v(x), self.num_kv_heads)
        return self._attend(q, k, v, mask)

    def decode(self, x_t, cache=None):
        """One step of generation: the new token ``x_t (B, 1, d_model)`` attends over every token
        so far, itself included.

        Args:
            cache: ``None`` for the first token, else the ``(K, V)`` the previous call returned.

        Returns:
            ``(out_t, (K, V))``: ``out_t (B, 1, d_model)``, and the projected keys and values of
            all ``T`` tokens so far, each ``(B, num_kv_heads, T, d_k)`` (shared heads stored once).
            Feeding ``x`` one token at a time gives ``forward(x, causal mask)`` row by row.
        """
        q = self._heads(self.W_q(x_t), self.num_heads)
        k = self._heads(self.W_k(x_t), self.num_kv_heads)
        v = self._heads(self.W_v(x_t), self.num_kv_heads)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)  # along the tokens
            v = torch.cat([cache[1], v], dim=2)
        out_t, _ = self._attend(q, k, v, None)  # the newest token may attend to every cached one
        return out_t, (k, v)


# ---- mutant: gqa_causal_by_default ----
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
