"""What a student's code returned on an item's hidden checks, as one digest (in the worker).

Every student of a run gets the same hidden inputs, so two copies of one program return the
same values: the digest covers every reply the item's checks got, numbers rounded to 6
decimals (a copy that adds in another order, or writes ``np.matmul`` for ``@``, returns values
that differ far below that). The worker records it only for an item that lost points and only
when a reporter asks (``Needs.behaviour``): correct outputs are never evidence. It holds no
value, only a hash, and ``results.json`` does not carry it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..diagnosis.record import Exchange
from ..diagnosis.replies import Unreadable, read
from ..wire import ForeignArray, Opaque, RaisedError

DECIMALS = 6


def digest(exchanges: Sequence[Exchange]) -> str:
    """The replies' digest; "" when there is nothing to compare (no reply, or only the stub's
    ``NotImplementedError``: not attempted)."""
    values = [read(e.reply) for e in exchanges]
    if not values or all(isinstance(v, RaisedError) and v.is_a("NotImplementedError") for v in values):
        return ""
    h = hashlib.blake2b(digest_size=12)
    for exchange, value in zip(exchanges, values, strict=True):
        h.update(exchange.check.encode())
        _feed(h, value)
    return h.hexdigest()


def raised(exchanges: Sequence[Exchange]) -> tuple[str, ...]:
    """The checks on which the code raised an error rather than return (each once, in order)."""
    return tuple(dict.fromkeys(e.check for e in exchanges if isinstance(read(e.reply), RaisedError)))


def _feed(h: Any, value: Any) -> None:
    if isinstance(value, ForeignArray):
        value = value.array
    if isinstance(value, np.ndarray):
        h.update(f"a{value.shape}{value.dtype.kind}".encode())
        if value.dtype.kind in "fc":
            with np.errstate(invalid="ignore", over="ignore"):
                value = np.round(value.astype(np.complex128 if value.dtype.kind == "c" else np.float64), DECIMALS) + 0.0
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (list, tuple)):
        h.update(f"l{len(value)}".encode())
        for v in value:
            _feed(h, v)
    elif isinstance(value, dict):
        h.update(f"d{len(value)}".encode())
        for key in sorted(value, key=str):
            h.update(str(key).encode())
            _feed(h, value[key])
    elif isinstance(value, RaisedError):
        h.update(f"e{value.type}".encode())
    elif isinstance(value, Opaque):
        h.update(f"o{value.type}".encode())
    elif isinstance(value, Unreadable):
        h.update(b"u")
    elif isinstance(value, float):
        h.update(repr(round(value, DECIMALS) + 0.0).encode())
    else:
        h.update(repr(value).encode())
