"""Execute a notebook's cells and answer requests on the loaded namespace.

This is the only code that touches student objects. It runs inside the sandboxed child
(or, for the in-process floor and nbgrader's hidden tests, in the caller's process), and
everything it returns is plain data from ``grader.wire.encode``.
"""

from __future__ import annotations

import sys
import traceback
import types
from typing import Any

from .. import wire
from ..submissions.ipython import transform_ipython
from ..wire import ERROR_CHARS
from . import memory

# A notebook's cell errors as they are kept: the first ``CELL_ERRORS``, each cut to
# ``ERROR_CHARS`` (the one cap on a student's text in a message), then one line that counts
# the rest. Applied where they are produced (the sandbox) and again where they are read (the
# worker): a notebook of 64,000 raising cells would otherwise be a result of hundreds of
# megabytes.
CELL_ERRORS = 50

# Cell magics whose body is ordinary Python that a kernel would run.
_RUN_BODY_MAGICS = {"time", "timeit", "capture", "prun"}


class _FakeIPython:
    """Enough of ``get_ipython()`` for transformed magics: shell escapes and magics do nothing."""

    def __init__(self, namespace: dict[str, Any]):
        self.user_ns = namespace

    def run_line_magic(self, name: str, line: str) -> None:
        return None

    def run_cell_magic(self, name: str, line: str, body: str) -> None:
        if name in _RUN_BODY_MAGICS:
            exec(compile(body, "<cell magic>", "exec"), self.user_ns)

    def system(self, command: str) -> None:
        return None

    def getoutput(self, command: str) -> list[str]:
        return []

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def new_namespace(notebook: str) -> dict[str, Any]:
    module = types.ModuleType(notebook)
    namespace = module.__dict__
    namespace["__name__"] = "__main__"
    shell = _FakeIPython(namespace)
    namespace["get_ipython"] = lambda: shell
    return namespace


def compile_cell(number: int, source: str) -> types.CodeType:
    """A cell's code as written (the diagnosis compiles a reference once for many runs)."""
    return compile(source, f"<cell {number}>", "exec")


def _compile_as_a_kernel(number: int, source: str) -> types.CodeType:
    """A notebook cell's code: its IPython syntax is rewritten here, where the cell runs (the
    sandbox), not where it was read (``grader.submissions.ipython``). A cell that compiles as
    written runs as written, with its lines where the student sees them (a module's cells are
    padded to their lines in the file); so does a real error with nothing to rewrite."""
    try:
        return compile_cell(number, source)
    except SyntaxError:  # a magic or an escape, or a real error
        rewritten = transform_ipython(source)
        if rewritten.rstrip("\n") == source.strip("\n"):  # IPython only took the blank lines off
            raise
        return compile_cell(number, rewritten)


def exec_cell(number: int, source: str | types.CodeType, namespace: dict[str, Any]) -> str | None:
    """Run one cell (its source, or its ``compile_cell``) as a kernel would; returns
    ``"Type: message"`` if it raised."""
    try:
        code = source if isinstance(source, types.CodeType) else _compile_as_a_kernel(number, source)
        exec(code, namespace)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: a kernel survives them
        return _describe(exc)
    finally:
        _flush()
    return None


def kept_errors(errors: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``errors`` (cell number, error), in cell order, within the caps: past ``CELL_ERRORS``,
    one more entry, at the first cell left out, says how many were."""
    kept = [(number, error[:ERROR_CHARS]) for number, error in errors[:CELL_ERRORS]]
    if len(errors) > CELL_ERRORS:
        rest = len(errors) - CELL_ERRORS
        kept.append((errors[CELL_ERRORS][0], f"... and {rest} more cell(s) raised errors "
                                            f"(only the first {CELL_ERRORS} are kept)"))
    return kept


class ReplyTooLarge(Exception):
    """What a call that returned more than the run's reply limit raised, as the grader sees it."""


def reply_too_long(length: int, limit: int) -> dict[str, Any]:
    """The reply sent in place of one of ``length`` bytes, over ``limit``: the call's error."""
    mb = limit / (1 << 20)
    error = ReplyTooLarge(f"the value returned is {length} bytes as sent to the grader, over the "
                          f"limit of {mb:g} MB (limits.reply_mb)")
    return wire.Reply(error=wire.encode_error(error)).to_json()


def handle(message: Any, namespace: dict[str, Any]) -> dict[str, Any]:
    """Answer one request as it came off the wire (``wire.Calls`` of a function or a
    ``wire.ModuleCall``); the reply as it goes back."""
    try:
        request = wire.request_from_json(message)
        if isinstance(request, wire.Calls):
            return _calls(request, namespace).to_json()
        return _module(request, namespace).to_json()
    except BaseException as exc:
        return wire.Reply(error=wire.encode_error(exc)).to_json()
    finally:
        _flush()


def _calls(request: wire.Calls, namespace: dict[str, Any]) -> wire.Reply:
    """One function on several argument lists; each call's value or error, in order. With the
    request's ``memory_budget``, each call's peak memory is measured (``grader.runners.memory``):
    the reply's ``memory`` holds, per call, its peak in bytes (None where not measured or it
    raised) and how it was measured; a call over the budget raises ``MemoryBudgetExceeded``."""
    function = _resolve(namespace, request.name)
    if isinstance(function, wire.Reply):
        return function
    budget = request.memory_budget
    results, peaks = [], []
    for args, kwargs in request.calls:
        try:
            if budget is None:
                results.append(wire.encode(_bound(function, args, kwargs)()))
                continue
            value, peak, method = memory.measured(_bound(function, args, kwargs), budget)
            results.append(wire.encode(value))
            peaks.append([peak, method])
        except BaseException as exc:  # as for a single call: one failing case is that case's reply
            results.append(wire.encode_error(exc))
            if budget is not None:
                peaks.append([exc.peak, exc.method] if isinstance(exc, memory.MemoryBudgetExceeded)
                             else [None, None])
    return wire.Reply(value=results, memory=peaks if budget is not None else None)


def _bound(function: Any, args: Any, kwargs: Any) -> Any:
    """``function`` on one call's encoded arguments, decoded here: a call of no arguments."""
    local_args = [_to_local(a) for a in wire.decode(args)]
    local_kwargs = {k: _to_local(v) for k, v in wire.decode(kwargs).items()}
    return lambda: function(*local_args, **local_kwargs)


def _resolve(namespace: dict[str, Any], name: str) -> Any:
    """The callable ``name``, or the reply saying it is missing."""
    value = namespace.get(name)
    if value is None:
        return wire.Reply(missing=name)
    if not callable(value):
        return wire.Reply(missing=name, kind=type(value).__name__)
    return value


def _to_local(value: Any) -> Any:
    """Decoded arrays are read-only views; students may legitimately write to their inputs."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return np.array(value)
    if isinstance(value, list):
        return [_to_local(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_to_local(v) for v in value)
    return value


def _module(request: wire.ModuleCall, namespace: dict[str, Any]) -> wire.Reply:
    import numpy as np
    import torch

    cls = _resolve(namespace, request.name)
    if isinstance(cls, wire.Reply):
        return cls

    def tensor(value: Any, grad: bool = False) -> Any:
        if isinstance(value, np.ndarray):
            t = torch.from_numpy(np.array(value))
            return t.requires_grad_(True) if grad else t
        if isinstance(value, (list, tuple)):
            return type(value)(tensor(v) for v in value)
        return value

    init = wire.decode(request.init) if request.init is not None else []
    module = cls(*init)
    reply: dict[str, Any] = {}
    if not isinstance(module, torch.nn.Module):
        return wire.Reply(value={"$dict": {"not_a_module": type(module).__name__}})
    state = wire.decode(request.state) if request.state is not None else {}
    if state:
        own = module.state_dict(keep_vars=True)
        for key, array in state.items():
            if key not in own:
                name = type(module).__name__
                raise KeyError(f"{name} has no parameter or buffer named {key!r}; it has {sorted(own)}")
            target = own[key]
            if tuple(target.shape) != tuple(array.shape):
                raise ValueError(f"{key} has shape {tuple(target.shape)}, expected {tuple(array.shape)}")
            with torch.no_grad():
                target.copy_(torch.from_numpy(np.array(array)))
    grad_inputs = set(request.grad_inputs)
    args = [tensor(a, i in grad_inputs) for i, a in enumerate(wire.decode(request.args) if request.args else [])]
    kwargs = {k: tensor(v) for k, v in (wire.decode(request.kwargs) if request.kwargs else {}).items()}
    method = request.method
    if method is not None:
        fn = getattr(module, method)
        outputs = fn(*args, **kwargs)
        reply["outputs"] = outputs
        seeds = wire.decode(request.grad_outputs) if request.grad_outputs is not None else None
        if seeds is not None:
            outs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
            loss = None
            for out, seed in zip(outs, seeds, strict=False):
                if seed is not None and isinstance(out, torch.Tensor):
                    term = (out * torch.from_numpy(np.array(seed)).to(out.dtype)).sum()
                    loss = term if loss is None else loss + term
            if loss is None or not loss.requires_grad:
                raise RuntimeError("the outputs are not connected to the inputs or parameters (no gradient can flow)")
            loss.backward()
            reply["input_grads"] = [a.grad if i in grad_inputs else None for i, a in enumerate(args)]
            reply["param_grads"] = {n: p.grad for n, p in module.named_parameters()}
    reply["parameters"] = {
        n: [list(p.shape), str(p.dtype), bool(p.requires_grad)] for n, p in module.named_parameters()
    }
    reply["buffers"] = {n: [list(b.shape), str(b.dtype)] for n, b in module.named_buffers()}
    state_dict = module.state_dict()
    reply["state_dict"] = list(state_dict.keys())
    reply["submodules"] = {n: f"{type(m).__module__}.{type(m).__qualname__}" for n, m in module.named_children()}
    reply["linear"] = {
        n: [m.in_features, m.out_features, m.bias is not None]
        for n, m in module.named_children() if isinstance(m, torch.nn.Linear)
    }
    fetch = request.fetch
    if fetch:
        reply["fetched"] = {n: state_dict[n] for n in fetch if n in state_dict}
    value = wire.encode(reply)
    if request.steps:
        value["$dict"].update(_steps(module, request.steps, tensor))
    return wire.Reply(value=value)


def _steps(module: Any, steps: tuple[wire.ModuleStep, ...], tensor: Any) -> dict[str, Any]:
    """``steps`` called in order on ``module``: ``{"steps": each one's outputs, encoded}``, and
    ``"failed_step": (its number, its error)`` for the first that raised, where they stop. A
    marker of an earlier step's output is that very object (a cache as the student returned it);
    each output is encoded as soon as its step returns, so a later step that changes it in place
    does not change what the grader reads."""
    done: list[Any] = []
    encoded: list[Any] = []

    def argument(value: Any) -> Any:
        path = wire.step_output(value)
        if path is None:
            return tensor(wire.decode(value))
        if path[0] >= len(done):
            raise ValueError(f"step {len(done)} names the output of step {path[0]}, which has not run")
        found = done[path[0]]
        for i in path[1:]:
            found = found[i]
        return found

    for number, step in enumerate(steps):
        try:
            args = [argument(a) for a in step.args]
            kwargs = {k: argument(v) for k, v in step.kwargs.items()}
            outputs = getattr(module, step.method)(*args, **kwargs)
            encoded.append(wire.encode(outputs))
        except BaseException as exc:  # as for a call of ``Calls``: the step's own reply
            return {"steps": encoded, "failed_step": {"$tuple": [number, wire.encode_error(exc)]}}
        done.append(outputs)
    return {"steps": encoded}


def _describe(exc: BaseException) -> str:
    try:
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    except Exception:
        text = type(exc).__name__
    return text[:ERROR_CHARS]


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
