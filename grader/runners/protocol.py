"""The runner protocol: what the item loop and the checks need from one loaded copy of a
student's notebook.

A *runner* answers requests with plain data: the sandboxed child in production
(``grader.sandbox.client.SandboxRunner``), or the in-process runner that nbgrader's hidden
tests and the benchmark's floor use (``grader.runners.inprocess.InProcessRunner``). The checks never
see which one it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..submissions.load import SourceFile
from ..wire import Request


class RunnerLost(Exception):
    """The runner cannot answer any more: its process died or was killed."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


class ItemTimeout(RunnerLost):
    """The item used up its time; the runner was killed."""


@dataclass(frozen=True)
class LoadOutcome:
    cell_errors: tuple[tuple[int, str], ...]  # (cell number, "ValueError: ...")
    output: str
    failure: str | None = None  # the notebook could not be loaded at all
    stopped: tuple[int, ...] = ()  # cells that ran too long and were left out


@dataclass(frozen=True)
class ItemOutput:
    text: str
    dropped_bytes: int


class Runner(Protocol):
    load: LoadOutcome

    def begin_item(self, item: str) -> None: ...

    def request(self, message: Request) -> Any:
        """Send ``message``; the reply's JSON as it came (``wire.Reply.from_json`` reads it)."""
        ...

    def end_item(self) -> ItemOutput: ...

    def close(self) -> None: ...


# Opens a fresh runner for a notebook (again after a crash or a timeout).
RunnerFactory = Callable[[SourceFile], Runner]
