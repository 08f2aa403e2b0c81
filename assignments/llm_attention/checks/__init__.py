"""The hidden checks of the llm_attention assignment, registered by item and name;
``assignment.yaml`` says which run and for how many points."""

from __future__ import annotations

from grader.checks import Registry

REGISTRY = Registry()
check = REGISTRY.check

# Registration happens on import. Each module holds one item's (or one part of an item's)
# checks.
from . import (  # noqa: E402,F401
    alibi,
    blockwise,
    gqa_decode,
    gqa_module,
    rotary,
    window,
)
