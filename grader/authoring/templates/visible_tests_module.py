import torch
from torch import nn

from __REF__.__NB__ import __NAME__
# new-item writes this file from the next line on: the lines above are for ruff and mypy alone
# Visible tests for __NAME__.
layer = __NAME__(4)
assert isinstance(getattr(layer, "proj", None), nn.Linear), "self.proj must be an nn.Linear"
x = torch.randn(2, 3, 4)
assert layer(x).shape == x.shape, "forward must keep the input's shape"
print("__NAME__: visible tests passed")
