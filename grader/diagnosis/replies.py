"""Whether two replies to the same request say the same thing, within an item's tolerance.

The diagnosis (``grader.diagnosis.diagnose``) asks it of the student's reply and a mutant's (or the
reference's), both read from their wire JSON as the checks read them. Arrays are compared
with the item's tolerance for the student's dtype (``grader.checks.base.close_mask``: the
tolerance every correct implementation meets), NaN matching NaN; an exception matches an
exception of the same class; everything else must be equal, structure included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import wire
from ..checks.base import Trial, close_mask
from ..wire import ForeignArray, Opaque, RaisedError


class Unreadable:
    """A reply that says nothing comparable (a name that is missing, data that would not
    decode): it is the same as nothing, itself included."""


UNREADABLE = Unreadable()
_PLAIN = (str, int, float, bool, type(None))


def read(reply: Any) -> Any:
    """A reply's value as the checks see it: plain data, or the ``RaisedError`` of the request."""
    try:
        parsed = wire.Reply.from_json(reply)
        if parsed.missing is not None:
            return UNREADABLE
        if parsed.error is not None:
            return wire.decode(parsed.error)
        return wire.decode(parsed.value)
    except (wire.WireError, ValueError, TypeError):
        return UNREADABLE


def same(t: Trial, student: Any, other: Any) -> bool:
    """``other`` reproduces ``student``: the tolerance is the one for the student's dtype."""
    if type(student) in _PLAIN and type(other) in _PLAIN and not (_number(student) and _number(other)):
        return student == other  # names, shapes, flags: exactly (a module's reply holds hundreds)
    if type(student) is int and type(other) is int:
        return student == other
    if isinstance(student, Unreadable) or isinstance(other, Unreadable):
        return False
    if isinstance(student, RaisedError) or isinstance(other, RaisedError):
        return isinstance(student, RaisedError) and isinstance(other, RaisedError) and student.type == other.type
    if isinstance(student, ForeignArray):
        student = student.array
    if isinstance(other, ForeignArray):
        other = other.array
    if isinstance(student, np.ndarray) or isinstance(other, np.ndarray):
        return _same_array(t, student, other)
    if isinstance(student, (list, tuple)):
        return (isinstance(other, (list, tuple)) and len(student) == len(other)
                and all(same(t, s, o) for s, o in zip(student, other, strict=True)))
    if isinstance(student, dict):
        return (isinstance(other, dict) and student.keys() == other.keys()
                and all(same(t, student[k], other[k]) for k in student))
    if isinstance(student, Opaque):
        return isinstance(other, Opaque) and student.type == other.type
    if _number(student) and _number(other):
        return _same_array(t, np.asarray(student, dtype=float), np.asarray(other, dtype=float))
    return type(student) is type(other) and bool(student == other)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same_array(t: Trial, student: Any, other: Any) -> bool:
    if not (isinstance(student, np.ndarray) and isinstance(other, np.ndarray)):
        return False
    if student.shape != other.shape:
        return False
    if student.dtype == np.bool_ or other.dtype == np.bool_:
        return student.dtype == other.dtype and bool(np.array_equal(student, other))
    if student.dtype.kind not in "fiu" or other.dtype.kind not in "fiu":
        return False
    with np.errstate(invalid="ignore"):
        ok = close_mask(t, student, other)
        if not ok.all():
            ok |= np.isnan(student.astype(float)) & np.isnan(other.astype(float))
    return bool(ok.all())
