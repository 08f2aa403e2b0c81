"""The hidden checks, registered by item and name; ``assignment.yaml`` says which run and
for how many points."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Trial

Check = Callable[["Trial"], None]
CHECKS: dict[str, dict[str, Check]] = {}


def check(item: str, name: str) -> Callable[[Check], Check]:
    """Register ``fn`` as check ``name`` of ``item``."""

    def register(fn: Check) -> Check:
        if name in CHECKS.setdefault(item, {}):
            raise ValueError(f"check {item}.{name} is registered twice")
        CHECKS[item][name] = fn
        return fn

    return register


def known_checks() -> dict[str, set[str]]:
    return {item: set(checks) for item, checks in CHECKS.items()}


# Registration happens on import; these modules hold the checks themselves.
from . import numpy_items, torch_items  # noqa: E402,F401
