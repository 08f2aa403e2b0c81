"""split_heads that returns (..., L, H, d_k): the axes are never moved. Not in the catalogue."""
# item: split_heads
# expect: none


def split_heads(x, num_heads):
    *lead, length, d_model = x.shape
    if d_model % num_heads:
        raise ValueError("num_heads must divide d_model")
    return x.reshape(*lead, length, num_heads, d_model // num_heads)
