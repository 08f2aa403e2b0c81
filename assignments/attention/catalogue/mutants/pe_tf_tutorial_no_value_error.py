"""An odd model size is accepted, leaving the last sine column without its cosine partner, instead of being refused.

The TensorFlow Transformer tutorial's positional encoding as it is: it accepts an odd
d_model (the last sin column has no cos partner) where the contract asks for a ValueError."""
# item: positional_encoding
# loses: rejects_odd_d_model
# Source: TensorFlow tutorial "Transformer model for language understanding"
# (tensorflow/docs, site/en/tutorials/text/transformer.ipynb), get_angles and
# positional_encoding; returned without the leading axis, as float32.
import numpy as np


def get_angles(pos, i, d_model):
    angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model))
    return pos * angle_rates


def positional_encoding(position, d_model):
    angle_rads = get_angles(np.arange(position)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model)
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    return angle_rads.astype(np.float32)
