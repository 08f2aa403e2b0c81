"""Part 2 of the attention assignment: attention as PyTorch modules.

Conventions (fixed by the assignment's contract):

* Masks are boolean and ``True`` means "may attend" (the convention of
  ``torch.nn.functional.scaled_dot_product_attention``; ``torch.nn.MultiheadAttention`` uses
  the opposite). Masked positions get weight exactly ``0``.
* No dropout; gradients flow to the inputs and to every parameter.

This file imports only math and torch (not the NumPy part), and the five classes do not use
one another: the grader also runs this file as if it were a student's submission, and it
replaces one class at a time when it checks that its tests catch mistakes.
"""

import math

import torch
from torch import nn


class BahdanauAttention(nn.Module):
    """Additive (Bahdanau) attention of one query per batch element over its keys.

    Score ``e[b, j] = v(tanh(W_q(query[b]) + W_k(keys[b, j])))``, weights
    ``softmax_j(e[b, j])`` (masked keys get weight exactly 0), context
    ``context[b] = sum_j weights[b, j] * keys[b, j]`` (the keys are also the values).

    Submodules: ``W_q = Linear(query_dim, attn_dim, bias=False)``,
    ``W_k = Linear(key_dim, attn_dim, bias=False)``, ``v = Linear(attn_dim, 1, bias=False)``.
    With the NumPy function's row-vector weights, ``W_q.weight = W_q_np.T``,
    ``W_k.weight = W_k_np.T`` and ``v.weight = v_np[None, :]``.
    """

    def __init__(self, query_dim, key_dim, attn_dim):
        super().__init__()
        self.W_q = nn.Linear(query_dim, attn_dim, bias=False)
        self.W_k = nn.Linear(key_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, query, keys, mask=None):
        """Attend from ``query (B, query_dim)`` over ``keys (B, Lk, key_dim)``.

        Args:
            mask: optional bool ``(B, Lk)``; ``True`` = may attend.

        Returns:
            ``(context, weights)`` with shapes ``(B, key_dim)`` and ``(B, Lk)``.
        """
        # The query's projection is shared by all keys of its batch element: broadcast it.
        hidden = torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))  # (B, Lk, attn)
        scores = self.v(hidden).squeeze(-1)  # (B, Lk)
        if mask is not None:
            mask = torch.as_tensor(mask, dtype=torch.bool, device=scores.device)
            # -inf, not a large negative number, so that masked weights are exactly 0.
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = torch.bmm(weights.unsqueeze(1), keys).squeeze(1)  # (B, key_dim)
        return context, weights


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention.

    Each head ``h`` attends with ``softmax(Q_h K_h^T / sqrt(d_k))`` (masked entries 0) where
    ``Q_h``, ``K_h``, ``V_h`` are features ``h*d_k ... (h+1)*d_k - 1`` of ``W_q(query)``,
    ``W_k(key)``, ``W_v(value)`` and ``d_k = d_model // num_heads``; the heads' outputs are
    concatenated in head order and projected by ``W_o``.

    Submodules: ``W_q, W_k, W_v, W_o``, each ``Linear(d_model, d_model)`` with bias. With the
    same weights it equals ``torch.nn.MultiheadAttention(d_model, num_heads, batch_first=True)``
    (``in_proj_weight`` = ``W_q``, ``W_k``, ``W_v`` weights stacked, ``out_proj`` = ``W_o``),
    except that torch's boolean mask means "blocked" where ours means "may attend".

    Raises:
        ValueError: if ``d_model`` is not divisible by ``num_heads``.
    """

    def __init__(self, d_model, num_heads):
        if num_heads <= 0 or d_model % num_heads != 0:
            raise ValueError(
                f"d_model ({d_model}) must be divisible by num_heads ({num_heads})"
            )
        super().__init__()
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        """``(B, L, d_model) -> (B, H, L, d_k)``; head ``h`` holds features
        ``h*d_k ... (h+1)*d_k - 1``."""
        batch, seq_len, _ = x.shape
        return x.reshape(batch, seq_len, self.num_heads, self.d_k).transpose(1, 2)

    def combine_heads(self, x):
        """``(B, H, L, d_k) -> (B, L, H * d_k)``, the exact inverse of :meth:`split_heads`."""
        batch, num_heads, seq_len, d_k = x.shape
        # transpose makes the tensor non-contiguous; reshape copies where view would fail.
        return x.transpose(1, 2).reshape(batch, seq_len, num_heads * d_k)

    def forward(self, query, key, value, mask=None):
        """Attend from ``query (B, Lq, d_model)`` over ``key``/``value (B, Lk, d_model)``.

        Args:
            mask: optional bool tensor broadcastable to ``(B, H, Lq, Lk)``; ``True`` = may
                attend. A padding mask ``(B, Lk)`` is passed as ``pad[:, None, None, :]``, a
                causal mask ``(Lq, Lk)`` as it is.

        Returns:
            ``(output, weights)``: ``(B, Lq, d_model)`` and the per-head (not averaged)
            weights ``(B, H, Lq, Lk)``.
        """
        q = self.split_heads(self.W_q(query))
        k = self.split_heads(self.W_k(key))
        v = self.split_heads(self.W_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)  # (B, H, Lq, Lk)
        if mask is not None:
            mask = torch.as_tensor(mask, dtype=torch.bool, device=scores.device)
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        output = self.W_o(self.combine_heads(weights @ v))
        return output, weights


class LuongAttention(nn.Module):
    """Multiplicative (Luong) attention of one query per batch element over its keys.

    Scores by ``method``: ``query . keys[j]`` (``"dot"``), ``W(query) . keys[j]``
    (``"general"``), ``v(tanh(W(cat(query, keys[j]))))`` (``"concat"``, the query first);
    weights ``softmax_j`` of the scores (masked keys get weight exactly 0), context
    ``sum_j weights[:, j] * values[:, j]``.

    Submodules, by method: ``"dot"``: none; ``"general"``:
    ``W = Linear(hidden_dim, hidden_dim, bias=False)``; ``"concat"``:
    ``W = Linear(2 * hidden_dim, hidden_dim)`` (with bias) and ``v = Linear(hidden_dim, 1, bias=False)``.

    Raises:
        ValueError: if ``method`` is not ``"dot"``, ``"general"`` or ``"concat"``.
    """

    def __init__(self, hidden_dim, method="general"):
        if method not in ("dot", "general", "concat"):
            raise ValueError(f"method must be 'dot', 'general' or 'concat', got {method!r}")
        super().__init__()
        self.hidden_dim = hidden_dim
        self.method = method
        if method == "general":
            self.W = nn.Linear(hidden_dim, hidden_dim, bias=False)
        elif method == "concat":
            self.W = nn.Linear(2 * hidden_dim, hidden_dim)
            self.v = nn.Linear(hidden_dim, 1, bias=False)

    def forward(self, query, keys, values, mask=None):
        """Attend from ``query (B, hidden_dim)`` over ``keys (B, Lk, hidden_dim)``.

        Args:
            values: ``(B, Lk, d_v)``.
            mask: optional bool ``(B, Lk)``; ``True`` = may attend.

        Returns:
            ``(context, weights)`` with shapes ``(B, d_v)`` and ``(B, Lk)``.
        """
        if self.method == "concat":
            # Pair the query with every key, query first: (B, Lk, 2 * hidden_dim).
            pairs = torch.cat([query.unsqueeze(1).expand(-1, keys.size(1), -1), keys], dim=-1)
            scores = self.v(torch.tanh(self.W(pairs))).squeeze(-1)  # (B, Lk)
        else:
            projected = self.W(query) if self.method == "general" else query
            scores = torch.bmm(keys, projected.unsqueeze(2)).squeeze(2)  # (B, Lk)
        if mask is not None:
            mask = torch.as_tensor(mask, dtype=torch.bool, device=scores.device)
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = torch.bmm(weights.unsqueeze(1), values).squeeze(1)  # (B, d_v)
        return context, weights


class PositionalEncoding(nn.Module):
    """Adds the sinusoidal positional encoding to its input.

    ``pe[0, p, 2i] = sin(p / 10000^(2i/d_model))``, ``pe[0, p, 2i+1] = cos(p / 10000^(2i/d_model))``
    for ``p = 0 .. max_len-1``, held in a buffer ``pe`` of shape ``(1, max_len, d_model)``
    (registered with ``register_buffer``: in ``state_dict``, not a parameter; it follows
    ``.to()``/``.double()``).

    The table is computed in float64 and then stored in torch's default dtype (float32 unless
    changed with ``torch.set_default_dtype``), so the float32 buffer is the correctly rounded
    table (angles computed in float32 are off by several 1e-4 near position 5000).

    Raises:
        ValueError: if ``d_model`` is odd (sin and cos come in pairs).
    """

    def __init__(self, d_model, max_len=5000):
        if d_model <= 0 or d_model % 2 != 0:
            raise ValueError(f"d_model must be a positive even number, got {d_model}")
        super().__init__()
        positions = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
        # The exponent is 2i/d_model with i counting pairs (0, 1, 2, ...).
        pair = torch.arange(d_model // 2, dtype=torch.float64)
        freqs = 1.0 / torch.pow(torch.tensor(10000.0, dtype=torch.float64), 2.0 * pair / d_model)
        angles = positions * freqs.unsqueeze(0)
        pe = torch.empty(max_len, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(angles)
        pe[:, 1::2] = torch.cos(angles)
        self.register_buffer("pe", pe.unsqueeze(0).to(torch.get_default_dtype()))

    def forward(self, x):
        """``x (B, L, d_model) -> x + pe[:, :L]`` (same shape as ``x``)."""
        seq_len = x.size(1)
        if seq_len > self.pe.size(1):
            raise ValueError(
                f"sequence length {seq_len} exceeds max_len {self.pe.size(1)}"
            )
        return x + self.pe[:, :seq_len]



class LearnedPositionalEmbedding(nn.Module):
    """Adds a learned embedding of each position to its input.

    ``forward(x) = x + embedding(positions)`` for ``x`` of shape ``(B, L, d_model)``, where
    ``positions = 0 .. L-1`` (the same for every entry of the batch, on ``x``'s device) and
    ``embedding = nn.Embedding(max_len, d_model)`` is the module's only parameter: it is
    trained with the model, and rows ``L .. max_len-1`` get no gradient from a batch of length L.

    Raises:
        ValueError: in ``forward``, if ``L > max_len`` (no row was learned for those positions).
    """

    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        """``x (B, L, d_model) -> x + embedding(0 .. L-1)`` (same shape as ``x``)."""
        seq_len = x.size(1)
        if seq_len > self.embedding.num_embeddings:
            raise ValueError(
                f"sequence length {seq_len} exceeds max_len {self.embedding.num_embeddings}"
            )
        positions = torch.arange(seq_len, device=x.device)
        # (L, d_model) broadcasts over the batch: every entry gets the same rows.
        return x + self.embedding(positions)
