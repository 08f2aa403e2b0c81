"""The input comes back as it was, nothing computed.

new-item's example mistake: replace it with one a student makes, in the student's words (the
first line is what the feedback shows; no code or numbers there)."""
# item: __NAME__
# loses: matches_reference
import numpy as np


def __NAME__(x):
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("a scalar")
    return x.astype(np.float64)
