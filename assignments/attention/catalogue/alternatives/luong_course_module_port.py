"""The course module's LuongAttention (the tutorial "Module 05: Attention Mechanism", section 3
"Luong Attention (Multiplicative)") ported to NumPy: the score by method as a batched product
(bmm becomes matmul), the concat pairs from the query expanded over the keys, masking with
mask == 0, the context as weights @ values."""
# item: luong_attention
# Source: the course's own module "Module 05: Attention Mechanism", section 3 "Luong Attention
# (Multiplicative)", class LuongAttention (torch.bmm(query.unsqueeze(1), keys.transpose(1, 2))
# for dot, self.W(query) first for general, torch.cat([query_expanded, keys], dim=2) for concat,
# masked_fill(mask == 0, -inf), F.softmax(scores, dim=1), torch.bmm(weights.unsqueeze(1), values)).
# Changes for the contract: NumPy arrays; the Linear layers are the given row-vector matrices
# (W, W_c without bias, v); the ValueErrors the module does not raise.
import numpy as np


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    if method not in ("dot", "general", "concat"):
        raise ValueError(f"unknown method {method!r}")
    if method == "dot":
        scores = np.squeeze(query[:, None, :] @ np.transpose(keys, (0, 2, 1)), 1)
    elif method == "general":
        if W is None:
            raise ValueError("general needs W")
        scores = np.squeeze((query @ W)[:, None, :] @ np.transpose(keys, (0, 2, 1)), 1)
    else:
        if W_c is None or v is None:
            raise ValueError("concat needs W_c and v")
        query_expanded = np.repeat(query[:, None, :], keys.shape[1], axis=1)
        combined = np.concatenate([query_expanded, keys], axis=2)
        scores = np.tanh(combined @ W_c) @ v
    if mask is not None:
        scores = np.where(np.asarray(mask) == 0, -np.inf, scores)
    scores = np.exp(scores - scores.max(axis=1, keepdims=True))
    attention_weights = scores / scores.sum(axis=1, keepdims=True)
    context = np.squeeze(attention_weights[:, None, :] @ values, 1)
    return context, attention_weights
