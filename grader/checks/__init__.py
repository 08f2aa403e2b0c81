"""The check library that every assignment bundle's checks are written with.

A bundle's checks package (``checks:`` in its YAML) holds a ``REGISTRY``: a ``Registry``
that its modules fill with ``@REGISTRY.check(item, name)``. The YAML says which checks run
and for how many points; the engine looks each one up in the bundle's own registry, so two
bundles never share a check. ``base`` holds what a check sees (``Trial``) and the comparisons;
``expect`` the failure explanations that several checks share; ``reference_cache`` the
reference's results, reused only for the same function on the same arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..results import Picture
    from .base import Trial

Check = Callable[["Trial"], None]
# Calls the student's code on an item's fixed public inputs: the pictures of what came back.
Example = Callable[["Trial"], Sequence["Picture"]]


class Registry:
    """The checks of one bundle, by item and name."""

    def __init__(self) -> None:
        self._checks: dict[str, dict[str, Check]] = {}
        self._examples: dict[str, Example] = {}

    def check(self, item: str, name: str) -> Callable[[Check], Check]:
        """Register the decorated function as check ``name`` of ``item``."""

        def register(fn: Check) -> Check:
            if name in self._checks.setdefault(item, {}):
                raise ValueError(f"check {item}.{name} is registered twice")
            self._checks[item][name] = fn
            return fn

        return register

    def example(self, item: str) -> Callable[[Example], Example]:
        """Register the decorated function as ``item``'s public example."""

        def register(fn: Example) -> Example:
            if item in self._examples:
                raise ValueError(f"the example of {item} is registered twice")
            self._examples[item] = fn
            return fn

        return register

    def example_of(self, item: str) -> Example | None:
        return self._examples.get(item)

    def get(self, item: str, name: str) -> Check:
        return self._checks[item][name]

    def known(self) -> dict[str, set[str]]:
        """Each item's check names (what the YAML may name)."""
        return {item: set(checks) for item, checks in self._checks.items()}
