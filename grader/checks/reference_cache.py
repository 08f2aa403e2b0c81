"""The reference's results, computed once per process: a worker that grades a whole class
asks for the same reference values once per student, and computes each once.

A result is reused only for the same computation: the same function (its module and
qualified name) on the same arguments (a digest of their values), asked for by the same
check (seed, item, check and call number, as ``Trial.reference`` counts them). Item and
check names alone do not tell two bundles apart in one process, nor two reference functions
of one check; the function and the arguments do.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np


class ReferenceKey(NamedTuple):
    seed: int
    item: str
    check: str
    call: int  # the check's n-th reference call
    function: str  # module:qualified name
    arguments: str  # digest of the arguments' values


_REFERENCE_CACHE: dict[ReferenceKey, Any] = {}


def memoised(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
             seed: int, item: str, check: str, call: int) -> Any:
    """``fn(*args, **kwargs)``, computed once per key; computed every time when the function
    has no name to key it by or an argument is of a kind the digest cannot read."""
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    digest = hashlib.blake2b(digest_size=16)
    if module is None or name is None or not _feed(digest, (args, kwargs)):
        return fn(*args, **kwargs)
    key = ReferenceKey(seed, item, check, call, f"{module}:{name}", digest.hexdigest())
    if key not in _REFERENCE_CACHE:
        _REFERENCE_CACHE[key] = fn(*args, **kwargs)
    return _REFERENCE_CACHE[key]


def _feed(digest: hashlib.blake2b, value: Any) -> bool:
    """Add ``value`` (numbers, strings, arrays and their containers) to ``digest``, tagged with
    its type and length so that no two different values feed the same bytes; False for any
    other kind of value."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        digest.update(f"{type(value).__name__}:{value!r};".encode())
        return True
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.hasobject:
            return False
        digest.update(f"{type(value).__name__}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())  # C order, whatever the strides
        return True
    if isinstance(value, (list, tuple)):
        digest.update(f"{type(value).__name__}:{len(value)};".encode())
        return all(_feed(digest, v) for v in value)
    if isinstance(value, dict):
        digest.update(f"dict:{len(value)};".encode())
        return all(_feed(digest, k) and _feed(digest, v) for k, v in value.items())
    return False
