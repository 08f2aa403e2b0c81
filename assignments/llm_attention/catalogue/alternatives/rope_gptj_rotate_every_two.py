"""apply_rotary as GPT-J writes it: rotate_every_two on adjacent pairs, sin and cos repeated
for both features of a pair."""
# item: apply_rotary
# Source: kingoflolz/mesh-transformer-jax, mesh_transformer/layers.py (fixed_pos_embedding, rotate_every_two, apply_rotary_pos_emb)
import numpy as np


def apply_rotary(x, positions=None, base=10000.0):
    dim = x.shape[-1]
    if dim % 2:
        raise ValueError("d must be even")
    positions = np.arange(x.shape[-2]) if positions is None else np.asarray(positions)
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2) / dim))
    sinusoid_inp = np.einsum("i , j -> i j", positions, inv_freq)
    sin, cos = np.sin(sinusoid_inp), np.cos(sinusoid_inp)

    def rotate_every_two(v):
        x1 = v[..., ::2]
        x2 = v[..., 1::2]
        return np.stack((-x2, x1), axis=-1).reshape(v.shape)

    sin = np.repeat(sin, 2, axis=-1)
    cos = np.repeat(cos, 2, axis=-1)
    return (x * cos) + (rotate_every_two(x) * sin)
