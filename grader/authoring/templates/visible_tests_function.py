import numpy as np

from __REF__.__NB__ import __NAME__
# new-item writes this file from the next line on: the lines above are for ruff and mypy alone
# Visible tests for __NAME__.
x = np.arange(6.0).reshape(2, 3)
y = __NAME__(x)
assert np.shape(y) == x.shape, f"__NAME__ must keep the shape {x.shape}, got {np.shape(y)}"
print("__NAME__: visible tests passed")
