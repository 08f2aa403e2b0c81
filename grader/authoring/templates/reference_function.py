import numpy as np
# new-item writes this file from the next line on: the lines above are for ruff and mypy alone


def __NAME__(x):
    """What __NAME__ computes, as the contract says it (new-item wrote this stub: edit it).

    ``x (..., d) -> (..., d)``, the same shape as ``x``.

    Raises:
        ValueError: if ``x`` is a scalar (no axis).
    """
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("__NAME__ needs an array with at least one axis, "
                         "got a scalar")
    raise NotImplementedError("new-item: write the reference of __NAME__"
                              " (__REF__/__NB__.py)")
