"""The signals that stop a run. Schedulers end a job with SIGTERM (Slurm, systemd, CI and tox
timeouts, Kubernetes, which signals only the container's main process), a closed terminal with
SIGHUP: the run's main process answers them as it answers Ctrl-C (its workers, zygotes and
sandboxes ended, the staging folder removed, one line), and the trusted processes it starts
leave all three to it, even when they reach the whole process group."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

STOPS = (signal.SIGTERM, signal.SIGHUP)
INTERRUPTS = (signal.SIGINT, *STOPS)  # what the main process answers, and its image, workers and zygotes ignore
STOPPED = frozenset(128 + number for number in INTERRUPTS)  # the exit statuses of a run they stopped


class Stopped(KeyboardInterrupt):
    """A stop signal, raised in the main thread where Ctrl-C's KeyboardInterrupt would be: every
    clean-up that Ctrl-C gets, this gets."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def ending(interrupt: KeyboardInterrupt) -> tuple[str, int]:
    """How a run that ``interrupt`` ended says so, and its exit status (128 + the signal's number)."""
    if isinstance(interrupt, Stopped):
        return f"stopped by {signal.Signals(interrupt.number).name}", 128 + interrupt.number
    return "interrupted", 128 + signal.SIGINT


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """For the block, a stop signal raises ``Stopped`` in the main thread (elsewhere nothing
    changes: only the main thread may set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # One ignored from the start stays ignored: ``nohup`` ignores SIGHUP so that the run goes
    # on when the terminal closes (Python leaves an ignored SIGINT alone likewise).
    previous = {number: signal.signal(number, _raise) for number in STOPS
                if signal.getsignal(number) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)  # None: set outside Python


def _raise(number: int, frame: FrameType | None) -> None:
    # The run is ending now: a second stop (a scheduler's or a group's repeat) must not cut its
    # clean-up short, which is what ends the workers and their sandboxes. SIGKILL still can.
    for stop in STOPS:
        signal.signal(stop, signal.SIG_IGN)
    raise Stopped(number)
