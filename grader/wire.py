"""Plain data between the trusted grader and a sandboxed child.

Frames (``grader.frames``) are a 4-byte big-endian length and a UTF-8 JSON document. Arrays travel as
dtype, shape and base64 bytes; the decoder accepts only numeric and boolean dtypes and
checks that the bytes match the shape, so nothing a student returns can run code or
lie about itself in the grader (no pickle, no object dtype, no subclasses).
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .frames import WireError

ALLOWED_DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64", "complex64", "complex128"]
)
# The allowed dtypes in native byte order, both ways (``dtype.name`` and ``np.dtype`` are slow).
_NAMES = {np.dtype(name): name for name in ALLOWED_DTYPES}
_DTYPES = {name: dtype for dtype, name in _NAMES.items()}
_PLAIN = frozenset({type(None), bool, int, float, str})  # JSON's own values, carried as they are


def dtype_name(dtype: np.dtype[Any]) -> str:
    """``dtype.name``, quickly for the common dtypes."""
    return _NAMES.get(dtype) or dtype.name


# The most of a student's text that one message carries (an exception's message here, a cell's
# error in ``grader.runners.serve``, a check's message in ``grader.checks.base``): the one cap.
ERROR_CHARS = 2000


@dataclass(frozen=True)
class ForeignArray:
    """Array data that arrived as something other than a plain ``numpy.ndarray``.

    ``type`` is the qualified class name the child saw (``torch.Tensor``, an ndarray
    subclass, ...); ``array`` is plain read-only data decoded from bytes.
    """

    array: np.ndarray
    type: str


@dataclass(frozen=True)
class Opaque:
    """A returned object the protocol does not carry (only its type name survives)."""

    type: str


@dataclass(frozen=True)
class RaisedError:
    """An exception raised by student code: its class, base class names and message."""

    type: str
    bases: tuple[str, ...]
    message: str

    def is_a(self, name: str) -> bool:
        return name == self.type or name in self.bases

    def describe(self) -> str:
        return f"{self.type}: {self.message}" if self.message else self.type


# ---- requests and replies ------------------------------------------------------------
# The grader's requests to a loaded notebook and the sandbox's replies, as typed records;
# ``to_json``/``from_json`` are the only places they meet the JSON of a frame. Values inside
# (arguments, results, errors) stay in their encoded form until ``decode``.


@dataclass(frozen=True)
class Calls:
    """Call the student's ``name`` once per (encoded args, encoded kwargs); one reply each."""

    name: str
    calls: tuple[tuple[Any, Any], ...]
    # Bytes: with it, each call's peak memory is measured where it runs (grader.runners.memory),
    # the reply's ``memory`` says it, and a call past it raises MemoryBudgetExceeded.
    memory_budget: int | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"op": "calls", "name": self.name, "calls": [[args, kwargs] for args, kwargs in self.calls]}
        return data if self.memory_budget is None else {**data, "memory_budget": self.memory_budget}


@dataclass(frozen=True)
class ModuleCall:
    """Build the student's module ``name(*init)``, copy ``state`` in and call ``method`` (None:
    only build it); with ``grad_outputs``, backpropagate. Arrays and lists are encoded."""

    name: str
    init: Any
    method: str | None
    state: Any = None
    args: Any = None
    kwargs: Any = None
    grad_inputs: tuple[int, ...] = ()
    grad_outputs: Any = None
    fetch: tuple[str, ...] = ()
    steps: tuple[ModuleStep, ...] = ()  # after ``method``: calls on the same module, in order

    def to_json(self) -> dict[str, Any]:
        message = {"op": "module", "name": self.name, "init": self.init, "method": self.method,
                   "state": self.state, "args": self.args, "kwargs": self.kwargs,
                   "grad_inputs": list(self.grad_inputs), "grad_outputs": self.grad_outputs,
                   "fetch": list(self.fetch)}
        if self.steps:
            message["steps"] = [[s.method, s.args, s.kwargs] for s in self.steps]
        return message


# ---- a stateful call sequence: ``ModuleCall.steps`` -----------------------------------
# A module's methods called one after another on the module the request built (decode, token
# after token, each time with the cache the previous call returned). An argument may stand for
# what an earlier step returned: that object is passed as it is, inside the sandbox, and comes
# back to the grader only as plain data, each step's outputs encoded as soon as the step returns.

STEP_OUTPUT = "$step"  # {"$step": [step, i, j, ...]}: step ``step``'s outputs[i][j]...


class StepOutput(NamedTuple):
    """In a step's arguments: what step ``step`` returned, or its element ``element``
    (``StepOutput(0, (1,))``: the first step's second value), passed as it is in the sandbox."""

    step: int
    element: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {STEP_OUTPUT: [self.step, *self.element]}


@dataclass(frozen=True)
class ModuleStep:
    """One call of a sequence: ``method(*args, **kwargs)``; ``args`` a list and ``kwargs`` a
    mapping of encoded values or ``{STEP_OUTPUT: [...]}`` markers of earlier steps."""

    method: str
    args: list[Any]
    kwargs: dict[str, Any]


def step_output(value: Any) -> tuple[int, ...] | None:
    """The path ``(step, i, j, ...)`` of a marker, or None when ``value`` is not one."""
    if type(value) is not dict or len(value) != 1 or STEP_OUTPUT not in value:
        return None
    path = value[STEP_OUTPUT]
    if type(path) is not list or not path or any(type(i) is not int or i < 0 for i in path):
        raise WireError("a step's output is named by a list of indices")
    return tuple(path)


def _steps_from_json(data: Any) -> tuple[ModuleStep, ...]:
    if data is None:
        return ()
    if type(data) is not list or any(type(s) is not list or len(s) != 3 or type(s[0]) is not str
                                     or type(s[1]) is not list or type(s[2]) is not dict for s in data):
        raise WireError("steps must be a list of [method, args, kwargs]")
    return tuple(ModuleStep(method, args, kwargs) for method, args, kwargs in data)


Request = Calls | ModuleCall


def request_from_json(data: Any) -> Request:
    """A request as the sandbox receives it; ``WireError`` if it is not one."""
    if type(data) is not dict or type(data.get("name")) is not str:
        raise WireError("a request needs an op and a name")
    op = data.get("op")
    if op == "calls" and type(data.get("calls")) is list:
        budget = data.get("memory_budget")
        return Calls(data["name"], tuple((pair[0], pair[1]) for pair in data["calls"]),
                     budget if type(budget) is int else None)
    if op == "module":
        return ModuleCall(data["name"], data.get("init"), data.get("method"), data.get("state"),
                          data.get("args"), data.get("kwargs"), tuple(data.get("grad_inputs") or ()),
                          data.get("grad_outputs"), tuple(data.get("fetch") or ()),
                          _steps_from_json(data.get("steps")))
    raise WireError(f"unknown op {op!r}")


@dataclass(frozen=True)
class Reply:
    """The answer to a request: an encoded ``value``, or the encoded ``error`` the request
    raised as a whole, or the name it asked for is ``missing`` (``kind``: what it is instead)."""

    value: Any = None
    error: Any = None
    missing: str | None = None
    kind: str | None = None
    # For ``Calls`` with a memory budget: per call, [peak bytes or None, how it was measured or None].
    memory: Any = None

    def to_json(self) -> dict[str, Any]:
        if self.missing is not None:
            return {"missing": self.missing, **({"kind": self.kind} if self.kind else {})}
        if self.memory is not None:
            return {"value": self.value, "memory": self.memory}
        return {"error": self.error} if self.error is not None else {"value": self.value}

    @classmethod
    def from_json(cls, data: Any) -> Reply:
        """A reply as the trusted side reads it; ``WireError`` if it is not one."""
        if type(data) is not dict:
            raise WireError("a reply must be a mapping")
        if "missing" in data:
            kind = data.get("kind")
            return cls(missing=str(data["missing"])[:200], kind=str(kind)[:200] if kind else None)
        return cls(value=data.get("value"), error=data.get("error"), memory=data.get("memory"))


# ---- encoding (both sides) -------------------------------------------------------

def _qualname(obj: Any) -> str:
    cls = type(obj)
    module = getattr(cls, "__module__", "?")
    return f"{module}.{cls.__qualname__}" if module != "builtins" else cls.__qualname__


def _encode_array(arr: np.ndarray, type_name: str) -> dict[str, Any]:
    name = _NAMES.get(arr.dtype)
    if name is None and arr.dtype.byteorder == ">" and arr.dtype.newbyteorder("=") in _NAMES:
        arr = arr.astype(arr.dtype.newbyteorder("="))  # big-endian data travels as native numbers
        name = _NAMES[arr.dtype]
    if name is None:
        return {"$opaque": f"{type_name} of dtype {arr.dtype}"}
    return {"$array": {
        "dtype": name, "shape": list(arr.shape), "type": type_name,
        "data": base64.b64encode(arr.tobytes(order="C")).decode("ascii"),
    }}


def encode(value: Any, depth: int = 0) -> Any:
    """Turn a value into JSON-ready plain data.

    Runs in the child on whatever student code returned, so it never trusts the
    object's own methods beyond what is needed to read raw bytes.
    """
    if depth > 20:
        return {"$opaque": "nesting too deep"}
    kind = type(value)
    if kind in _PLAIN:
        return value
    # Exact types first, and plain members without a call: replies hold thousands of them
    # (shapes, names), and this runs on both sides of every request.
    if kind is list or kind is tuple:
        items = [v if type(v) in _PLAIN else encode(v, depth + 1) for v in value]
        return items if kind is list else {"$tuple": items}
    if kind is dict and all(type(k) is str for k in value):
        return {"$dict": {k: v if type(v) in _PLAIN else encode(v, depth + 1) for k, v in value.items()}}
    if kind is np.ndarray:
        return _encode_array(value, "numpy.ndarray")
    if isinstance(value, np.generic) and kind.__module__ == "numpy":
        # A numpy scalar is a number: it travels as one (a list of them then reads as an array).
        if value.dtype.kind in "biuf":
            return value.item()
        return _encode_array(np.asarray(value), "numpy." + type(value).__name__)
    if isinstance(value, np.ndarray):
        # Read the raw buffer through the base class so subclass overrides play no part.
        plain = np.ndarray.view(value, np.ndarray)
        return _encode_array(np.array(plain, copy=True), _qualname(value))
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        data = torch.Tensor.detach(value).cpu()
        if data.dtype == torch.bfloat16:
            data = data.float()
        return _encode_array(data.numpy(), _qualname(value))
    return {"$opaque": _qualname(value)}


def encode_error(exc: BaseException) -> dict[str, Any]:
    bases = [cls.__name__ for cls in type(exc).__mro__[1:]]
    try:
        message = str(exc)[:ERROR_CHARS]
    except Exception:  # a student exception whose __str__ raises
        message = "<unprintable message>"
    return {"$error": {"type": type(exc).__name__, "bases": bases, "message": message}}


def _torch() -> Any:
    import sys

    return sys.modules.get("torch")


# ---- decoding (the trusted side is strict) -----------------------------------------

def decode(value: Any, depth: int = 0) -> Any:
    """Rebuild plain data; arrays become read-only ``numpy.ndarray`` or ``ForeignArray``."""
    if depth > 40:
        raise WireError("nesting too deep")
    if type(value) in _PLAIN:
        return value
    if type(value) is list:
        return [v if type(v) in _PLAIN else decode(v, depth + 1) for v in value]
    if type(value) is not dict or len(value) != 1:
        raise WireError(f"unexpected value of type {type(value).__name__}")
    (tag, body), = value.items()
    if tag == "$tuple" and type(body) is list:
        return tuple(decode(v, depth + 1) for v in body)
    if tag == "$dict" and type(body) is dict:
        return {str(k): v if type(v) in _PLAIN else decode(v, depth + 1) for k, v in body.items()}
    if tag == "$array" and type(body) is dict:
        return _decode_array(body)
    if tag == "$opaque":
        return Opaque(str(body)[:200])
    if tag == "$error" and type(body) is dict:
        bases = body.get("bases")
        return RaisedError(
            type=str(body.get("type"))[:200],
            bases=tuple(str(b)[:200] for b in bases) if type(bases) is list else (),
            message=str(body.get("message"))[:ERROR_CHARS],
        )
    raise WireError(f"unknown tag {tag!r}")


def _decode_array(body: dict[str, Any]) -> np.ndarray | ForeignArray:
    dtype, shape, data, type_name = body.get("dtype"), body.get("shape"), body.get("data"), body.get("type")
    if type(dtype) is not str or dtype not in _DTYPES:
        raise WireError(f"dtype {dtype!r} is not allowed")
    if type(shape) is not list or len(shape) > 32:
        raise WireError("bad shape")
    for n in shape:
        if type(n) is not int or n < 0:
            raise WireError("bad shape")
    if not isinstance(data, str) or not isinstance(type_name, str):
        raise WireError("bad array body")
    raw = base64.b64decode(data, validate=True)
    arr = np.frombuffer(raw, dtype=_DTYPES[dtype])
    if arr.size != math.prod(shape):
        raise WireError(f"{len(raw)} bytes do not fill shape {shape}")
    arr = arr.reshape(shape)
    arr.flags.writeable = False
    return arr if type_name == "numpy.ndarray" else ForeignArray(arr, type_name[:200])
