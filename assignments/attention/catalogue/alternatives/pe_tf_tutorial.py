"""The TensorFlow Transformer tutorial's positional encoding: angle rates
1 / 10000 ** ((2 * (i // 2)) / np.float32(d_model)) over every column i, sin on the even
columns and cos on the odd ones, cast to float32; with the ValueError the contract asks for."""
# item: positional_encoding
# Source: TensorFlow tutorial "Transformer model for language understanding"
# (tensorflow/docs, site/en/tutorials/text/transformer.ipynb), get_angles and
# positional_encoding. Changes for the contract: the odd-d_model check (the tutorial has none:
# see the mutant pe_tf_tutorial_no_value_error), and the (max_len, d_model) table is returned
# without the leading axis, as a float32 NumPy array (tf.cast(..., tf.float32) -> astype).
import numpy as np


def get_angles(pos, i, d_model):
    angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model))
    return pos * angle_rates


def positional_encoding(position, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    angle_rads = get_angles(np.arange(position)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model)
    # apply sin to even indices in the array; 2i
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    # apply cos to odd indices in the array; 2i+1
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    return angle_rads.astype(np.float32)
