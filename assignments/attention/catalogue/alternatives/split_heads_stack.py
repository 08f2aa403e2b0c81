"""split_heads with np.split along the features and np.stack on a new head axis."""
# item: split_heads
import numpy as np


def split_heads(x, num_heads):
    if x.shape[-1] % num_heads:
        raise ValueError(f"d_model {x.shape[-1]} is not divisible by {num_heads} heads")
    return np.stack(np.split(x, num_heads, axis=-1), axis=1)
