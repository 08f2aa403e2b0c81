"""A bundle's checks by item and name: what its checks package fills and the engine looks up.

A bundle's checks package (``checks:`` in its YAML) holds a ``REGISTRY``, which its modules
fill with ``@REGISTRY.check(item, name)``; the YAML says which checks run and for how many
points, and ``load_bundle`` validates those names against ``known()``. It lives here, beside
the loader, so that loading a bundle needs nothing of the check library: a check takes a
``grader.checks.base.Trial``, which this floor only stores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Check = Callable[[Any], None]  # called with the item's Trial; fails by raising CheckFailed
Example = Callable[[Any], Sequence[Any]]  # called with a Trial on the item's public inputs: its Pictures


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
