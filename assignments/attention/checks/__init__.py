"""The hidden checks of the attention assignment, registered by item and name;
``assignment.yaml`` says which run and for how many points."""

from __future__ import annotations

from grader.checks import Registry

REGISTRY = Registry()
check = REGISTRY.check

# Registration happens on import; these modules hold the checks themselves.
from . import examples, numpy_attention, numpy_heads_positions, numpy_items, torch_items  # noqa: E402,F401
