"""The Annotated Transformer's subsequent_mask: triu(ones, diagonal=1) as uint8 (the future),
then == 0, so True where the key is not in the future; returned without its leading axis."""
# item: causal_mask
# Source: The Annotated Transformer (harvardnlp/annotated-transformer,
# the_annotated_transformer.py), subsequent_mask:
#     attn_shape = (1, size, size)
#     subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
#     return subsequent_mask == 0
# Ported to NumPy; the one change: the (1, size, size) mask is returned as (size, size).
import numpy as np


def causal_mask(size):
    "Mask out subsequent positions."
    attn_shape = (1, size, size)
    subsequent_mask = np.triu(np.ones(attn_shape), k=1).astype(np.uint8)
    return (subsequent_mask == 0)[0]
