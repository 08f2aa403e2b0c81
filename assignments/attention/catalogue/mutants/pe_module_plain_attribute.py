"""The table is stored as a plain attribute, not as a registered buffer, so it is not part of the module's state.

PositionalEncoding keeping its table as self.pe = ... (no register_buffer): not in
state_dict, does not follow .to(); everything else as the contract says."""
# item: PositionalEncoding
# loses: pe_is_a_buffer
_Base = PositionalEncoding


class PositionalEncoding(_Base):
    def __init__(self, d_model, max_len=5000):
        super().__init__(d_model, max_len)
        table = self.pe
        del self.pe  # a buffer is deleted from the module's buffers...
        self.pe = table  # ... and comes back as a plain attribute
