"""What a check sees: a ``Trial`` (inputs from the run's seed, calls into the submission
that come back as plain data), and the comparison with a tolerance (``discrepancy``,
``close_mask``) that the ``expect_*`` helpers (``grader.checks.expect``) explain failures with.

A check is a function ``check(t: Trial) -> None`` that raises ``CheckFailed`` with a
student-readable message; it runs in the trusted process.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import wire
from ..assignment.config import Item, Tolerance
from ..runners.protocol import ItemTimeout
from ..wire import ForeignArray, Opaque, RaisedError
from .calls import MemoryUse, Step, signature, step_argument, step_signature
from .reference_cache import memoised

if TYPE_CHECKING:
    from ..runners.protocol import Runner


class CheckFailed(Exception):
    """``margin``: for a failed tolerance comparison, its worst error divided by the tolerance
    there (how far outside the tolerance the submission landed); None for any other failure.

    The message is cut to ``wire.ERROR_CHARS`` here, where every check's message is made: it may
    quote what the student chose (names, types, an exception's text), and it is copied into
    every output of the run."""

    def __init__(self, message: str, margin: float | None = None):
        message = capped(message)
        super().__init__(message)
        self.message = message
        self.margin = margin


def capped(text: str, limit: int = wire.ERROR_CHARS) -> str:
    """``text``, or its start and how much was cut, in at most ``limit`` characters."""
    if len(text) <= limit:
        return text
    tail = f" ... (cut: {len(text):,} characters in all)"
    return text[:limit - len(tail)] + tail


@dataclass(frozen=True)
class ModuleReply:
    outputs: Any
    input_grads: list[Any] | None
    param_grads: dict[str, Any] | None
    parameters: dict[str, tuple[tuple[int, ...], str, bool]]
    buffers: dict[str, tuple[tuple[int, ...], str]]
    state_dict: list[str]
    submodules: dict[str, str]
    linear: dict[str, tuple[int, int, bool]]  # submodule -> (in_features, out_features, has bias)
    fetched: dict[str, Any]


class Args:
    """The arguments of one call of ``Trial.call_each``: ``Args(x, axis=0)``."""

    __slots__ = ("args", "kwargs")

    def __init__(self, *args: Any, **kwargs: Any):
        self.args = args
        self.kwargs = kwargs


@dataclass
class Trial:
    item: Item
    check: str
    seed: int
    rng_seed: list[int]
    runner: Runner
    _reference_calls: int = field(default=0, repr=False)
    # The largest error / tolerance of the comparisons that passed (``discrepancy`` inside the
    # tolerance everywhere): how close a check that passes came to failing; None without one.
    closest: float | None = field(default=None, repr=False)

    @cached_property
    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.rng_seed)

    def tolerance(self, dtype: Any) -> Tolerance:
        return self.item.tolerance(wire.dtype_name(np.dtype(dtype)))

    def reference(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` computed once per (seed, item, check, call number), function
        and arguments: a worker that grades a whole class computes each once."""
        call = self._reference_calls
        self._reference_calls += 1
        return memoised(fn, args, kwargs, self.seed, self.item.name, self.check, call)

    # ---- calling the submission -------------------------------------------------------

    def call_each(self, calls: Sequence[Args], name: str | None = None) -> Iterator[Any]:
        """The student's ``name`` (default: this item) called on each of ``calls``, sent to
        the sandbox as one request: a round trip between processes costs more than most
        calls, so a check makes one, not one per case.

        The replies come in order, and the reply of a call that raised raises ``CheckFailed``
        when the check reaches it, so a check reports the first failure in the order of its
        cases, as if it had made the calls one by one.
        """
        name = name or self.item.name
        for args, reply in zip(calls, self._call_each(calls, name), strict=True):
            if isinstance(reply, RaisedError):
                raise CheckFailed(f"{name}({signature(args.args, args.kwargs)}) raised {reply.describe()}")
            yield reply

    def raised_each(self, calls: Sequence[Args], name: str | None = None) -> list[RaisedError | None]:
        """For each of ``calls``, in one request: the exception it raised, or None if it returned."""
        replies = self._call_each(calls, name or self.item.name)
        return [reply if isinstance(reply, RaisedError) else None for reply in replies]

    def _call_each(self, calls: Sequence[Args], name: str) -> list[Any]:
        message = wire.Calls(name, tuple((wire.encode(list(c.args)), wire.encode(c.kwargs)) for c in calls))
        running = f"{name}(...) was running on {len(calls)} inputs" if len(calls) > 1 else \
            f"{name}({signature(calls[0].args, calls[0].kwargs)}) was running" if calls else f"{name} was running"
        replies = self._request(message, name, running)
        if not isinstance(replies, list) or len(replies) != len(calls):
            raise CheckFailed("the sandbox sent a malformed reply")
        return replies

    def module(self, *init: Any, name: str | None = None, state: dict[str, np.ndarray] | None = None,
               method: str | None = "forward", args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
               grad_inputs: Sequence[int] = (), grad_outputs: Sequence[np.ndarray | None] | None = None,
               fetch: Sequence[str] = ()) -> ModuleReply:
        """Build the student's module ``name(*init)``, copy ``state`` in, call ``method``,
        and (with ``grad_outputs``) backpropagate ``sum(out_i * grad_outputs[i])``."""
        name = name or self.item.name
        message = wire.ModuleCall(
            name, wire.encode(list(init)), method, state=wire.encode(state or {}), args=wire.encode(list(args)),
            kwargs=wire.encode(kwargs or {}), grad_inputs=tuple(grad_inputs), fetch=tuple(fetch),
            grad_outputs=None if grad_outputs is None else wire.encode(list(grad_outputs)),
        )
        where = f"{name}({signature(init, {})})" + (f".{method}(...)" if method else "")
        reply = self._module_reply(message, where)
        try:
            return ModuleReply(
                outputs=reply.get("outputs"),
                input_grads=reply.get("input_grads"),
                param_grads=reply.get("param_grads"),
                parameters={k: (tuple(v[0]), str(v[1]), bool(v[2])) for k, v in reply["parameters"].items()},
                buffers={k: (tuple(v[0]), str(v[1])) for k, v in reply["buffers"].items()},
                state_dict=[str(k) for k in reply["state_dict"]],
                submodules={str(k): str(v) for k, v in reply["submodules"].items()},
                linear={str(k): (int(v[0]), int(v[1]), bool(v[2])) for k, v in reply["linear"].items()},
                fetched=reply.get("fetched") or {},
            )
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise CheckFailed(f"{where}: the sandbox sent a malformed reply ({exc})") from exc

    def _module_reply(self, message: wire.ModuleCall, where: str) -> dict[str, Any]:
        reply = self._request(message, message.name, f"{where} was running")
        if isinstance(reply, RaisedError):
            raise CheckFailed(f"{where} raised {reply.describe()}")
        if not isinstance(reply, dict) or "not_a_module" in reply:
            raise CheckFailed(f"{message.name}(...) did not build a torch.nn.Module")
        return reply

    def module_steps(self, *init: Any, steps: Sequence[Step], name: str | None = None,
                     state: dict[str, np.ndarray] | None = None) -> list[Any]:
        """Build the student's module ``name(*init)``, copy ``state`` in, then call each of
        ``steps`` in order on that one module (``decode`` token after token, each time with the
        cache the previous call returned: ``StepOutput(i, (1,))`` in a step's arguments); each
        step's outputs, as plain data. A step that raises fails the check, naming the step."""
        name = name or self.item.name
        encoded = tuple(wire.ModuleStep(s.method, [step_argument(a) for a in s.args],
                                        {k: step_argument(v) for k, v in (s.kwargs or {}).items()})
                        for s in steps)
        message = wire.ModuleCall(name, wire.encode(list(init)), None, state=wire.encode(state or {}),
                                  steps=encoded)
        where = f"{name}({signature(init, {})})"
        reply = self._module_reply(message, where)
        outputs, failed = reply.get("steps"), reply.get("failed_step")
        number, error = failed if isinstance(failed, tuple) and len(failed) == 2 else (len(steps), failed)
        if not isinstance(outputs, list) or len(outputs) != number or not (
                error is None or isinstance(error, RaisedError) and number < len(steps)):
            raise CheckFailed(f"{where}: the sandbox sent a malformed reply")
        if error is not None:
            step = steps[number]
            raise CheckFailed(f"{where}.{step.method}({step_signature(step)}), call {number + 1} of "
                              f"{len(steps)} on the same module, raised {error.describe()}")
        return outputs

    def module_raises(self, *init: Any, name: str | None = None, state: dict[str, np.ndarray] | None = None,
                      method: str | None = None, args: Sequence[Any] = ()) -> RaisedError | None:
        """The exception building ``name(*init)`` raised (with ``method``: building it, loading
        ``state`` and calling ``method(*args)``), or None if all of it returned."""
        name = name or self.item.name
        message = wire.ModuleCall(name, wire.encode(list(init)), method, state=wire.encode(state or {}),
                                  args=wire.encode(list(args)))
        where = f"{name}({signature(init, {})})" + (f".{method}(...)" if method else "")
        reply = self._request(message, name, f"{where} was running")
        return reply if isinstance(reply, RaisedError) else None

    def peak_memory(self, args: Args, budget: int, name: str | None = None) -> tuple[Any, MemoryUse]:
        """The student's ``name`` (default: this item) called once on ``args``, with its peak
        memory measured in the process that runs it (``grader.runners.memory``): its value
        (a ``RaisedError`` of ``MemoryBudgetExceeded`` past ``budget`` bytes) and a
        ``MemoryUse``. A call that raised anything else raises ``CheckFailed``."""
        name = name or self.item.name
        where = f"{name}({signature(args.args, args.kwargs)})"
        message = wire.Calls(name, ((wire.encode(list(args.args)), wire.encode(args.kwargs)),), budget)
        reply = self._exchange(message, name, f"{where} was running")
        values = self._decoded(reply, name)
        try:
            ((peak, method),) = reply.memory
            use = MemoryUse(peak if type(peak) is int else None, budget, str(method) if method else "")
        except (TypeError, ValueError):
            raise CheckFailed("the sandbox sent a malformed reply") from None
        if not isinstance(values, list) or len(values) != 1:
            raise CheckFailed("the sandbox sent a malformed reply")
        (value,) = values
        if isinstance(value, RaisedError) and not value.is_a("MemoryBudgetExceeded"):
            raise CheckFailed(f"{where} raised {value.describe()}")
        return value, use

    def _request(self, message: wire.Request, name: str, running: str) -> Any:
        """``running``: what the call was doing, as the student would write it, for the
        message if it runs out of time ("f(...) was running on 4 inputs")."""
        return self._decoded(self._exchange(message, name, running), name)

    def _exchange(self, message: wire.Request, name: str, running: str) -> wire.Reply:
        """The reply to ``message``, as sent: a name that is missing, or that ran out of time,
        raises here."""
        try:
            reply = wire.Reply.from_json(self.runner.request(message))
        except wire.WireError:
            raise CheckFailed("the sandbox sent a malformed reply") from None
        except ItemTimeout as timeout:
            raise ItemTimeout(f"{timeout.why} while {running} (check {self.check}); the likely "
                              "cause is an endless loop, or a Python loop over every element that is far too "
                              "slow (use array operations)") from None
        if reply.missing is not None:
            kind = reply.kind
            raise CheckFailed(f"{name} is not defined in your {self.item.notebook} notebook"
                              + (f" (it is a {kind}, not a function or class)" if kind else ""))
        return reply

    def _decoded(self, reply: wire.Reply, name: str) -> Any:
        """A reply's value, or the ``RaisedError`` the request raised as a whole."""
        try:
            if reply.error is not None:
                error = wire.decode(reply.error)
                if isinstance(error, RaisedError):
                    return error
            return wire.decode(reply.value)
        except (wire.WireError, ValueError, TypeError) as exc:
            raise CheckFailed(f"{name} returned data the grader cannot read: {exc}") from exc


# ---- reading what came back ------------------------------------------------------------

def describe_type(value: Any) -> str:
    if isinstance(value, ForeignArray):
        return value.type
    if isinstance(value, Opaque):
        return value.type
    if isinstance(value, np.ndarray):
        return "numpy.ndarray"
    return type(value).__name__


def as_array(value: Any, what: str, *, numpy_only: bool = False) -> np.ndarray:
    """The returned value as an array; ``numpy_only`` insists it was a plain ndarray."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, ForeignArray):
        if numpy_only:
            raise CheckFailed(f"{what} is a {value.type}; return a plain numpy.ndarray")
        return value.array
    if numpy_only or not isinstance(value, (list, tuple, int, float, bool)):
        raise CheckFailed(f"{what} is a {describe_type(value)}; return a numpy.ndarray")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise CheckFailed(f"{what} is a {describe_type(value)} that is not an array of numbers") from exc


def as_pair(value: Any, what: str) -> tuple[Any, Any]:
    """A function that returns ``(a, b)``: a tuple or list of exactly two values."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        got = f"{len(value)} values" if isinstance(value, (tuple, list)) else f"a {describe_type(value)}"
        raise CheckFailed(f"{what} should return a pair (output, weights); it returned {got}")
    return value[0], value[1]


def fmt_index(index: Sequence[int] | tuple[Any, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def verb(what: str, singular: str, plural: str) -> str:
    """The verb that agrees with ``what``: plural when its first noun is ("the outputs of
    f ... differ", "weights returned by ... have"), singular otherwise."""
    words = what.split()
    head = words[1] if len(words) > 1 and words[0].lower() == "the" else words[0] if words else ""
    return plural if re.fullmatch(r"[a-z]+[^aisu]s", head) else singular


@dataclass(frozen=True)
class Discrepancy:
    """The entries of a comparison that are outside the tolerance, and the worst of them (the
    largest error for its tolerance)."""

    outside: int
    size: int
    index: tuple[int, ...]
    error: float  # |actual - expected| at the worst entry; NaN or inf when actual is not finite
    tolerance: float  # what the worst entry was allowed

    @property
    def margin(self) -> float | None:
        """How many tolerances the worst entry is off; None when that is not a finite number
        (results.json is strict JSON: no inf)."""
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            ratio = np.float64(self.error) / np.float64(self.tolerance)
        return float(ratio) if np.isfinite(ratio) else None

    def amount(self) -> str:
        """'by up to 1.2e-03 (tolerance 2.0e-05)': sizes, never values."""
        return f"by up to {self.error:.1e} (tolerance {self.tolerance:.1e})"

    def sizes(self) -> str:
        """'by up to 1.2e-03 (tolerance 2.0e-05) at [0, 1]', or 'the entry at [0, 1] is NaN'."""
        if not np.isfinite(self.error):
            kind = "NaN" if np.isnan(self.error) else "infinite"
            return f"the entry at {fmt_index(self.index)} is {kind}"
        return f"{self.amount()} at {fmt_index(self.index)}"

    def __str__(self) -> str:
        return f"{self.sizes()}; {self.outside} of {self.size} entries are outside the tolerance"


def discrepancy(t: Trial, actual: np.ndarray, expected: Any, dtype: Any = None) -> Discrepancy | None:
    """Where ``actual`` is outside the tolerance around ``expected`` (see :func:`close_mask`),
    or None when it is inside everywhere. ``dtype`` picks the tolerance (default: ``actual``'s)."""
    ok, error, allowed = _band(t, actual, expected, dtype)
    if ok.all():
        with np.errstate(divide="ignore", invalid="ignore"):
            inside = np.divide(error, allowed, out=np.zeros(error.shape), where=np.isfinite(error) & (allowed > 0))
        t.closest = max(t.closest or 0.0, float(inside.max(initial=0.0)))
        return None
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = np.where(ok, -1.0, error / allowed)
    ratio[np.isnan(ratio)] = np.inf
    worst = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    return Discrepancy(int(ok.size - ok.sum()), int(ok.size), tuple(int(i) for i in worst),
                       float(error[worst]), float(allowed[worst]))


def close_mask(t: Trial, actual: np.ndarray, expected: Any, dtype: Any = None) -> np.ndarray:
    """Entrywise: ``|a - e| <= atol s + rtol |e|``, with the tolerance of ``dtype`` (default:
    ``actual``'s) from the assignment, and ``s`` the scale of the entry's row: the largest finite
    ``|e|`` along the last axis, and at least 1, the scale at which the checks draw their inputs.

    Rounding error follows the size of the numbers an entry is computed from, not the entry's
    own size: a small weight next to a large one, an output that cancels, or a gradient that is
    mathematically zero carries the error of its row and inputs. As in ``numpy.isclose``, NaN
    is never close and an infinity only to itself.
    """
    return _band(t, actual, expected, dtype)[0]


def _band(t: Trial, actual: np.ndarray, expected: Any,
          dtype: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(within the tolerance, |a - e|, the tolerance), entry by entry, broadcast together."""
    if dtype is None:
        dtype = actual.dtype
    tol = t.tolerance(dtype if np.dtype(dtype).kind == "f" else np.float64)
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    finite = np.isfinite(e)
    with np.errstate(invalid="ignore", over="ignore"):
        size = np.abs(e, where=finite, out=np.zeros(e.shape))
        scale = size.max(axis=-1, keepdims=True, initial=1.0) if size.ndim else np.maximum(size, 1.0)
        allowed = tol.atol * scale + tol.rtol * size
        error = np.abs(a - e)
        ok = error <= allowed
        ok &= finite
        ok |= a == e
    # Called a few hundred times per student: broadcast only where the shapes differ.
    if error.shape != ok.shape:
        error = np.broadcast_to(error, ok.shape)
    if allowed.shape != ok.shape:
        allowed = np.broadcast_to(allowed, ok.shape)
    return ok, error, allowed
