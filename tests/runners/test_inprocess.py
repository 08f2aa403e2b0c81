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
