"""The hidden checks of the attention assignment, registered by item and name;
``assignment.yaml`` says which run and for how many points."""

from __future__ import annotations

from grader.checks import Registry

REGISTRY = Registry()
check = REGISTRY.check

# Registration happens on import; these modules hold the checks themselves.
from . import (  # noqa: E402,F401
    examples,
    numpy_attention,
    numpy_heads_positions,
    numpy_items,
    numpy_luong,
    torch_items,
    torch_luong,
    torch_properties,
    worked_examples,
)
