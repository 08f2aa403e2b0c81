"""The features are paired as the first half with the second half, not as adjacent pairs.

The rotate-half layout of HF Llama and GPT-NeoX: feature i turns with feature i + d/2. A valid
RoPE layout of its own (weights converted from Meta's checkpoints are permuted to match it), but
not the contract's adjacent pairs (2i, 2i+1)."""
# item: apply_rotary
# loses: rotates_adjacent_pairs, matches_definition
# Source: huggingface/transformers, models/llama/modeling_llama.py (rotate_half, apply_rotary_pos_emb); GPT-NeoX
import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    positions = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2) / d))
    freqs = np.outer(positions, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)

    def rotate_half(v):
        v1, v2 = v[..., : d // 2], v[..., d // 2:]
        return np.concatenate([-v2, v1], axis=-1)

    return x * np.cos(emb) + rotate_half(x) * np.sin(emb)
