"""The default maximum length is shorter than the one asked for.

PositionalEncoding whose max_len defaults to 512 instead of 5000."""
# item: PositionalEncoding
# loses: default_max_len
# says: 5000
_Base = PositionalEncoding


class PositionalEncoding(_Base):
    def __init__(self, d_model, max_len=512):
        super().__init__(d_model, max_len)
