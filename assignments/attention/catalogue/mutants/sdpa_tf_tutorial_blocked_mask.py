"""The mask is applied as in the TensorFlow tutorial, where a one means blocked, so the allowed keys are the ones pushed down.

The TensorFlow tutorial's scaled dot-product attention ported as it is, mask included:
there the mask is 1 = blocked (mask * -1e9 is added), so with the contract's True = may
attend every allowed key is pushed to -1e9 and every blocked key keeps its score."""
# item: scaled_dot_product_attention
# loses: masked_weights_are_zero, causal_mask_blocks_future
# Source: TensorFlow tutorial "Transformer model for language understanding"
# (tensorflow/docs, site/en/tutorials/text/transformer.ipynb), scaled_dot_product_attention:
#     scaled_attention_logits += (mask * -1e9)
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    matmul_qk = Q @ np.swapaxes(K, -1, -2)
    dk = np.float32(K.shape[-1])
    scaled_attention_logits = matmul_qk / np.sqrt(dk)
    if mask is not None:
        scaled_attention_logits = scaled_attention_logits + (mask * -1e9)
    shifted = scaled_attention_logits - scaled_attention_logits.max(axis=-1, keepdims=True)
    attention_weights = np.exp(shifted) / np.exp(shifted).sum(axis=-1, keepdims=True)
    output = attention_weights @ V
    return output, attention_weights
