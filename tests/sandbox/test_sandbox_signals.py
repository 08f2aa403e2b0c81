"""A sandbox dies with its zygote, however the zygote ends (``kill -9`` of a run's whole
process group gives it no chance to end its sandboxes), and student code gets the signals
of a fresh Python, not the ignoring of the trusted processes it was forked from."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

import pytest
from sandbox_support import Box

from grader.sandbox.handles import Zygote
from grader.sandbox.paths import PROJECT_ROOT
from grader.sandbox.spec import SandboxError

pytestmark = pytest.mark.timeout(120)

SIGNALS = """
import signal

def dispositions():
    return [signal.getsignal(number) is signal.SIG_DFL for number in (signal.SIGTERM, signal.SIGHUP)] + [
        signal.getsignal(signal.SIGINT) is signal.default_int_handler]
"""


def test_a_sandbox_ends_with_its_zygote_whatever_its_uid(ends_within):
    """As root the sandbox drops to a uid of its own, which clears the parent-death signal set
    at the fork: it must be set again, or a sandbox outlives a killed zygote."""
    zygote = Zygote()  # its own, to kill; nothing warm: it starts in a moment
    box = Box(zygote, "x = 1\n")
    try:
        assert box.runner.load.failure is None, box.runner.load
        zygote.process.kill()
        zygote.process.wait()
        assert ends_within(box.pid, 5)
    finally:
        with contextlib.suppress(OSError):  # a sandbox that outlived it: this test's to end
            os.kill(box.pid, signal.SIGKILL)
        with contextlib.suppress(SandboxError):  # the zygote is gone, as the test wanted
            box.close()
        zygote.close()


def test_student_code_gets_the_signals_of_a_fresh_python(box_factory):
    # The image and zygotes ignore Ctrl-C and the stop signals (the run's main process answers them).
    assert box_factory(SIGNALS).call("dispositions") == [True, True, True]


@pytest.mark.parametrize("ended", [True, False])
def test_a_sandbox_set_up_after_its_zygote_ended_kills_itself(ended: bool):
    """The parent-death signal is set again after the uid drop; a zygote that ended before
    that would never send it: its pidfd, checked after, says so."""
    script = f"""
import ctypes, os, subprocess
from grader.sandbox.child import _die_with_zygote
zygote = subprocess.Popen(["sleep", "600"])
fd = os.pidfd_open(zygote.pid)
if {ended}:
    zygote.kill()
    zygote.wait()
_die_with_zygote(fd)
number = ctypes.c_int()
ctypes.CDLL(None).prctl(2, ctypes.byref(number), 0, 0, 0)  # PR_GET_PDEATHSIG
print(number.value)
zygote.kill()
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=PROJECT_ROOT,
                          timeout=60)
    assert (done.returncode, done.stdout) == ((-9, "") if ended else (0, "9\n")), done.stderr
