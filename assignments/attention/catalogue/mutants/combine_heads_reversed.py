"""The heads are concatenated in reverse order.

combine_heads that concatenates the heads in reverse order."""
# item: combine_heads
# loses: head_order_preserved
# says: do not hold head
import numpy as np


def combine_heads(x):
    return np.concatenate([x[:, h] for h in reversed(range(x.shape[1]))], axis=-1)
