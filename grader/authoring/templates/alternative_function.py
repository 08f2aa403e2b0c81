from __REF__.__NB__ import __NAME__
# new-item writes this file from the next line on: the lines above are for ruff and mypy alone
"""__NAME__ computed in float32 (new-item's example alternative: replace it with a port
of public code, named by its source in a comment and in the file's name)."""
# item: __NAME__
import numpy as np

_reference = __NAME__


def __NAME__(x):
    return _reference(np.asarray(x, dtype=np.float32))
