"""The table is a buffer left out of the module's saved state.

PositionalEncoding registering pe with persistent=False: a buffer, but not in state_dict."""
# item: PositionalEncoding
# loses: pe_is_a_buffer
# says: state_dict | persistent
_Base = PositionalEncoding


class PositionalEncoding(_Base):
    def __init__(self, d_model, max_len=5000):
        super().__init__(d_model, max_len)
        table = self.pe
        del self.pe
        self.register_buffer("pe", table, persistent=False)
