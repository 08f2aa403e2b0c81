"""The causal mask is the TensorFlow tutorial's look-ahead mask, numbers where one means blocked, rather than a boolean mask where True means may attend.

The TensorFlow tutorial's look-ahead mask as it is: 1 - band_part(ones, -1, 0), a float
mask with 1 = blocked, the opposite of the contract's bool True = may attend."""
# item: causal_mask
# loses: bool_square_shape, allows_past_and_self, blocks_future
# Source: TensorFlow tutorial "Transformer model for language understanding"
# (tensorflow/docs, site/en/tutorials/text/transformer.ipynb), create_look_ahead_mask:
#     mask = 1 - tf.linalg.band_part(tf.ones((size, size)), -1, 0)
# tf.linalg.band_part(x, -1, 0) keeps the lower triangle with the diagonal: np.tril.
import numpy as np


def causal_mask(size):
    mask = 1 - np.tril(np.ones((size, size), dtype=np.float32))
    return mask  # (seq_len, seq_len)
