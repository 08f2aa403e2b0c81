"""The hidden checks of the attention assignment, registered by item and name;
``assignment.yaml`` says which run and for how many points."""

from __future__ import annotations

from grader.checks import Registry

REGISTRY = Registry()
check = REGISTRY.check

# Registration happens on import. Each module holds one item's (or one small concept's)
# checks, public example and worked example; the *_support modules hold what they share.
from . import (  # noqa: E402,F401
    bahdanau,
    bahdanau_module,
    heads,
    learned_positional_embedding,
    luong,
    luong_module,
    masks,
    multi_head_module,
    positional_encoding,
    positional_encoding_module,
    relative_shift,
    scaled_dot_product,
    softmax,
)
