"""The sines and cosines are laid out as two blocks side by side instead of alternating column by column, and an odd model size is not refused.

The newer TensorFlow Transformer tutorial's positional encoding: the sin block and the cos
block concatenated ([sin | cos]) instead of interleaved (sin on even, cos on odd columns),
and no ValueError for an odd d_model."""
# item: positional_encoding
# loses: sin_on_even_cos_on_odd, matches_formula, rejects_odd_d_model
# Source: TensorFlow tutorial "Neural machine translation with a Transformer and Keras"
# (tensorflow/text, docs/tutorials/transformer.ipynb), positional_encoding(length, depth):
#     depth = depth/2
#     positions = np.arange(length)[:, np.newaxis]; depths = np.arange(depth)[np.newaxis, :]/depth
#     angle_rates = 1 / (10000**depths); angle_rads = positions * angle_rates
#     pos_encoding = np.concatenate([np.sin(angle_rads), np.cos(angle_rads)], axis=-1)
#     return tf.cast(pos_encoding, dtype=tf.float32)
import numpy as np


def positional_encoding(length, depth):
    depth = depth / 2
    positions = np.arange(length)[:, np.newaxis]  # (seq, 1)
    depths = np.arange(depth)[np.newaxis, :] / depth  # (1, depth)
    angle_rates = 1 / (10000**depths)  # (1, depth)
    angle_rads = positions * angle_rates  # (pos, depth)
    pos_encoding = np.concatenate([np.sin(angle_rads), np.cos(angle_rads)], axis=-1)
    return pos_encoding.astype(np.float32)
