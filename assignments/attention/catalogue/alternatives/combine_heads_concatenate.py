"""combine_heads by concatenating the heads along the features."""
# item: combine_heads
import numpy as np


def combine_heads(x):
    return np.concatenate([x[:, h] for h in range(x.shape[1])], axis=-1)
