"""The mask is taken but never applied, so blocked keys still receive weight.

BahdanauAttention that accepts a mask and ignores it."""
# item: BahdanauAttention
# loses: mask_zeroes_weights
# says: the mask blocks key
_Base = BahdanauAttention


class BahdanauAttention(_Base):
    def forward(self, query, keys, mask=None):
        return super().forward(query, keys, None)
