"""The TensorFlow tutorial's look-ahead mask turned to the contract: band_part(ones, -1, 0)
(the lower triangle with the diagonal) is exactly "may attend", so the port drops the
tutorial's `1 -` and casts to bool."""
# item: causal_mask
# Source: TensorFlow tutorial "Transformer model for language understanding"
# (tensorflow/docs, site/en/tutorials/text/transformer.ipynb), create_look_ahead_mask, with
# tf.linalg.band_part(x, -1, 0) as np.tril; see the mutant causal_mask_tf_look_ahead for the
# tutorial's own 1 = blocked float mask.
import numpy as np


def causal_mask(size):
    return np.tril(np.ones((size, size), dtype=np.float32)).astype(bool)
