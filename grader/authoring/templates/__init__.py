"""The pieces ``new-item`` writes, as the files they become (``grader.authoring.pieces`` fills
in their tokens). A package so that ruff and mypy check the templates as they check a bundle's
checks: ``REGISTRY`` stands in for the bundle's, which the checks templates import. Nothing
imports the templates themselves.
"""

from __future__ import annotations

from ...checks import Registry

REGISTRY = Registry()
