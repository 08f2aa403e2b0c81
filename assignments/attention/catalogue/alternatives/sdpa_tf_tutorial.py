"""scaled dot-product attention ported from the TensorFlow Transformer tutorial: d_k cast to
float32 before the square root (so the scale is sqrt(d_k) rounded to float32), the mask
added as -1e9, with the mask flipped to the contract's True = may attend."""
# item: scaled_dot_product_attention
# Source: TensorFlow tutorial "Transformer model for language understanding"
# (tensorflow/docs, site/en/tutorials/text/transformer.ipynb), scaled_dot_product_attention:
#     matmul_qk = tf.matmul(q, k, transpose_b=True)
#     dk = tf.cast(tf.shape(k)[-1], tf.float32)
#     scaled_attention_logits = matmul_qk / tf.math.sqrt(dk)
#     if mask is not None: scaled_attention_logits += (mask * -1e9)
#     attention_weights = tf.nn.softmax(scaled_attention_logits, axis=-1)
#     output = tf.matmul(attention_weights, v)
# Ported to NumPy line by line; the one change for the contract: the tutorial's mask is
# 1 = blocked, ours True = may attend, so the blocked entries are ~mask.
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    matmul_qk = Q @ np.swapaxes(K, -1, -2)
    dk = np.float32(K.shape[-1])
    scaled_attention_logits = matmul_qk / np.sqrt(dk)
    if mask is not None:
        scaled_attention_logits = scaled_attention_logits + (~np.asarray(mask, dtype=bool)) * -1e9
    shifted = scaled_attention_logits - scaled_attention_logits.max(axis=-1, keepdims=True)
    attention_weights = np.exp(shifted) / np.exp(shifted).sum(axis=-1, keepdims=True)
    output = attention_weights @ V
    return output, attention_weights
