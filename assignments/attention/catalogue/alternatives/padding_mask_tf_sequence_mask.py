"""tf.sequence_mask(lengths, maxlen) in NumPy, the TensorFlow way to build a padding mask:
arange(maxlen) < expand_dims(lengths, -1), True on the real tokens."""
# item: padding_mask
# Source: TensorFlow, tf.sequence_mask (tensorflow/python/ops/array_ops.py, sequence_mask):
#     row_vector = gen_math_ops._range(0, maxlen, 1)
#     matrix = gen_math_ops.cast(expand_dims(lengths, -1), maxlen.dtype)
#     result = row_vector < matrix
import numpy as np


def padding_mask(lengths, maxlen):
    row_vector = np.arange(0, maxlen, 1)
    matrix = np.expand_dims(lengths, -1)
    return row_vector < matrix
