"""apply_rotary with complex numbers, as Meta's Llama computes it: each adjacent pair is one
complex number, multiplied by exp(i p theta)."""
# item: apply_rotary
# Source: meta-llama/llama, llama/model.py (precompute_freqs_cis, apply_rotary_emb: view_as_complex on pairs)
import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("d must be even")
    positions = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    freqs = 1.0 / (base ** (np.arange(0, d, 2)[: d // 2] / d))
    freqs_cis = np.exp(1j * np.outer(positions, freqs))
    x_complex = x[..., 0::2] + 1j * x[..., 1::2]
    rotated = x_complex * freqs_cis
    return np.stack([rotated.real, rotated.imag], axis=-1).reshape(x.shape)
