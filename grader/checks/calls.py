"""The records and words of the calls a check makes beyond one function call: a module's
sequence of ``Step``s (``Trial.module_steps``), the ``MemoryUse`` of a measured call
(``Trial.peak_memory``), and a call's arguments written as a student reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .. import wire
from ..wire import StepOutput


@dataclass(frozen=True)
class MemoryUse:
    """How much memory a call took (``Trial.peak_memory``): ``peak``, the bytes its process grew
    by at its peak over what it held when the call began, or None where it was not measured
    (``method`` says how it was, or why not); ``budget``, the bytes the check allowed."""

    peak: int | None
    budget: int
    method: str


class Step(NamedTuple):
    """One call of ``Trial.module_steps``, ``method(*args, **kwargs)``: plain data, which
    ``Trial.reference`` can key a result on."""

    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] | None = None


def step_argument(value: Any) -> Any:
    return value.to_json() if isinstance(value, StepOutput) else wire.encode(value)


def step_signature(step: Step) -> str:
    """A step's arguments as a student reads them, an earlier step's output named by its call."""
    def one(value: Any) -> str:
        if isinstance(value, StepOutput):
            return f"<what call {value.step + 1} returned" + "".join(f"[{i}]" for i in value.element) + ">"
        return signature([value], {})

    return ", ".join([one(a) for a in step.args] + [f"{k}={one(v)}" for k, v in (step.kwargs or {}).items()])


def signature(args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    def short(v: Any) -> str:
        if isinstance(v, np.ndarray):
            return f"<array {v.dtype} shape {tuple(v.shape)}>"
        if isinstance(v, (list, tuple)) and len(v) > 6:
            return f"<{type(v).__name__} of {len(v)}>"
        return repr(v)

    parts = [short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)
