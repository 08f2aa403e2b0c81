"""The checks without isolation: student code and checks in one process.

Not for grading a class (a submission could patch the checks). It exists for two
comparisons: nbgrader's hidden-test cells (``grader.nbgrader.hidden_tests``) and the
benchmark's floor.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

from .. import frames, wire
from ..submissions.load import SourceFile
from . import serve
from .protocol import ItemOutput, ItemTimeout, LoadOutcome


class _Overrun(BaseException):
    """Raised into student code by the timer: a BaseException, which ``except Exception`` lets by."""


class InProcessRunner:
    """A runner over a namespace in this process; replies pass through the wire format
    so the checks see exactly what the sandbox would send.

    With ``seconds``, a request that runs longer raises ``ItemTimeout``, as the sandbox's
    does: a timer interrupts Python code (not a long call inside C), in the main thread only.
    """

    def __init__(self, namespace: dict[str, Any], load: LoadOutcome | None = None, seconds: float | None = None):
        self.namespace = namespace
        self.load = load or LoadOutcome((), "")
        self.seconds = seconds

    @classmethod
    def from_source(cls, source: SourceFile, seconds: float | None = None) -> InProcessRunner:
        namespace = serve.new_namespace(source.notebook)
        errors = []
        for cell in source.cells:
            error = serve.exec_cell(cell.number, cell.source, namespace)
            if error is not None:
                errors.append((cell.number, error))
        return cls(namespace, LoadOutcome(tuple(errors), "", source.problem), seconds)

    def begin_item(self, item: str) -> None:
        return None

    def request(self, message: wire.Request) -> Any:
        if self.seconds is None or threading.current_thread() is not threading.main_thread():
            reply = serve.handle(message.to_json(), self.namespace)
        else:
            reply = self._timed(message)
        return frames.parse(frames.pack(reply)[frames.HEADER_SIZE:])

    def _timed(self, message: wire.Request) -> Any:
        assert self.seconds is not None
        overran = False

        def overrun(signum: int, frame: Any) -> None:
            nonlocal overran
            overran = True
            # Raised into the request's code only: a tick that lands in this module's own
            # bookkeeping (the request has returned, the timer is being stopped) would escape
            # the try below and leave the caller mid-request.
            if frame is None or frame.f_globals is not globals():
                raise _Overrun

        previous = signal.signal(signal.SIGALRM, overrun)
        # Once run out, the timer fires again every 50 ms: a request of several calls is
        # answered call by call, and each of the rest is stopped in its turn.
        started = time.monotonic()
        outer = signal.setitimer(signal.ITIMER_REAL, self.seconds, 0.05)
        try:
            reply = serve.handle(message.to_json(), self.namespace)  # it turns _Overrun into a reply
        except _Overrun:
            reply = None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer[0] > 0:  # a timer of the caller's (pytest-timeout's, say) goes on
                signal.setitimer(signal.ITIMER_REAL, max(outer[0] - (time.monotonic() - started), 1e-3), outer[1])
        if overran:
            raise ItemTimeout(f"the time limit of {self.seconds:g} s ran out")
        return reply

    def end_item(self) -> ItemOutput:
        return ItemOutput("", 0)

    def close(self) -> None:
        return None
