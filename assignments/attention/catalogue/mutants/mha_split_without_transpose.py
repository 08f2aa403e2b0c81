"""The heads are split by a reshape alone, without moving the head axis, so each head mixes positions.

MultiHeadAttention whose split_heads reshapes straight to (B, H, L, d_k) without a transpose.

The shapes are right, so nothing crashes, but head h then holds a block of positions
instead of features h*d_k ... (h+1)*d_k - 1; combine_heads undoes it consistently.
"""
# item: MultiHeadAttention
# loses: split_and_combine_heads
# says: split_heads | features
_Base = MultiHeadAttention


class MultiHeadAttention(_Base):
    def split_heads(self, x):
        batch, seq_len, _ = x.shape
        return x.reshape(batch, self.num_heads, seq_len, self.d_k)

    def combine_heads(self, x):
        batch, num_heads, seq_len, d_k = x.shape
        return x.reshape(batch, seq_len, num_heads * d_k)
