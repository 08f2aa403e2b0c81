"""The main process's answer to a scheduler's stop: ``Stopped`` where Ctrl-C's
KeyboardInterrupt would be, once, and nothing changed outside the block or where the signal
was ignored from the start (``nohup``)."""

from __future__ import annotations

import signal

import pytest

from grader.stop import Stopped, ending, stopped_by_signals


def test_a_stop_raises_once_in_the_block_and_the_handlers_come_back_after():
    before = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
    with stopped_by_signals():
        with pytest.raises(Stopped) as stopped:
            signal.raise_signal(signal.SIGTERM)
        # A second stop while the run ends (a group's repeat) must not cut its clean-up short.
        signal.raise_signal(signal.SIGHUP)
        signal.raise_signal(signal.SIGTERM)
    assert stopped.value.number == signal.SIGTERM
    assert {number: signal.getsignal(number) for number in before} == before


def test_a_stop_ignored_from_the_start_stays_ignored():
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup starts a run
    try:
        with stopped_by_signals():
            signal.raise_signal(signal.SIGHUP)
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_each_ending_says_its_signal_and_exits_128_plus_its_number():
    assert ending(KeyboardInterrupt()) == ("interrupted", 130)
    assert ending(Stopped(signal.SIGTERM)) == ("stopped by SIGTERM", 143)
    assert ending(Stopped(signal.SIGHUP)) == ("stopped by SIGHUP", 129)
