"""The exponent doubles a feature index that already steps by two, so the frequencies are wrong.

PositionalEncoding with the 2*i slip: the exponent uses 2*(2i)/d_model because i already
runs over the even feature indices 0, 2, 4, ..."""
# item: PositionalEncoding
import torch

_Base = PositionalEncoding


class PositionalEncoding(_Base):
    def __init__(self, d_model, max_len=5000):
        super().__init__(d_model, max_len)
        position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
        i = torch.arange(0, d_model, 2, dtype=torch.float64)
        angles = position / torch.pow(10000.0, 2 * i / d_model)
        pe = torch.zeros(max_len, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(angles)
        pe[:, 1::2] = torch.cos(angles)
        self.pe = pe.unsqueeze(0).float()
