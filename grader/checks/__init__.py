"""The check library that every assignment bundle's checks are written with.

A bundle's checks package (``checks:`` in its YAML) holds a ``REGISTRY``: a ``Registry``
(``grader.assignment.registry``, re-exported here for the bundles' checks) that its modules
fill with ``@REGISTRY.check(item, name)``. The YAML says which checks run and for how many
points; the engine looks each one up in the bundle's own registry, so two bundles never share
a check. ``base`` holds what a check sees (``Trial``) and the comparison with a tolerance;
``expect`` every ``expect_*`` helper (one property each, explained when it breaks);
``inputs`` and ``pictures`` what checks draw and show; ``reference_cache`` the reference's
results, reused only for the same function on the same arguments.
"""

from __future__ import annotations

from ..assignment.registry import Registry

__all__ = ["Registry"]
