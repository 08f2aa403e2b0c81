import pytest

from grader import wire
from grader.runners.inprocess import InProcessRunner
from grader.runners.protocol import ItemTimeout
from grader.submissions.load import Cell, SourceFile

SOURCE = """
def forever(x):
    while True:
        try:
            # A call: CPython 3.10 looks for signals only at some instructions, which a loop
            # of bare arithmetic inside a try block never reaches.
            x = abs(x) + 1
        except Exception:  # the timer's interruption is not an Exception: it gets through
            pass

def quick(x):
    return x + 1
"""


def runner(seconds: float | None) -> InProcessRunner:
    return InProcessRunner.from_source(SourceFile("nb", "nb.py", (Cell(1, SOURCE),)), seconds=seconds)


def call(name: str) -> wire.Calls:
    return wire.Calls(name, ((wire.encode([1]), wire.encode({})),))


def test_a_request_that_runs_too_long_is_a_timeout_and_the_runner_goes_on():
    r = runner(0.2)
    with pytest.raises(ItemTimeout, match="the time limit of 0.2 s ran out"):
        r.request(call("forever"))
    assert r.request(call("quick")) == {"value": [2]}


def test_without_a_limit_a_quick_call_answers():
    assert runner(None).request(call("quick")) == {"value": [2]}


def test_every_call_of_a_request_that_runs_too_long_is_stopped():
    r = runner(0.2)
    request = wire.Calls("forever", tuple((wire.encode([1]), wire.encode({})) for _ in range(3)))
    with pytest.raises(ItemTimeout):
        r.request(request)


def test_a_tick_that_lands_as_the_timer_is_stopped_does_not_escape(monkeypatch):
    # The repeating tick can be handled in the runner's own frame, after the request returned
    # and before the timer is stopped (seen under load: the audit's worker left mid-request).
    # Deliver one there, deterministically: as the runner stops its timer.
    import signal
    import sys

    real = signal.setitimer

    def setitimer(which: int, seconds: float, interval: float = 0.0) -> tuple[float, float]:
        if seconds == 0:
            signal.getsignal(signal.SIGALRM)(signal.SIGALRM, sys._getframe(1))
        return real(which, seconds, interval)

    monkeypatch.setattr(signal, "setitimer", setitimer)
    with pytest.raises(ItemTimeout):
        runner(5).request(call("quick"))
