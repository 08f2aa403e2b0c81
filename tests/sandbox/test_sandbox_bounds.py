"""What a sandbox sends is bounded where it is produced and again where the worker reads it:
a reply over ``limits.reply_mb`` (refused from its header, before a byte of it is read), and a
notebook's cell errors (a count and a length each), so one notebook never makes a result of
hundreds of megabytes. On every rung."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from sandbox_support import LIMITS

from grader import wire
from grader.runners.protocol import RunnerLost
from grader.runners.serve import CELL_ERRORS, ERROR_CHARS
from grader.sandbox.client import SandboxRunner
from grader.submissions.load import Cell, SourceFile

pytestmark = pytest.mark.timeout(120)

BOUNDS = r"""
import os, stat, struct, time
import numpy as np

def is_socket(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:  # not open
        return False

def channel():
    return next(fd for fd in range(3, 256) if is_socket(fd))

def announce_over_limit(size):
    os.write(channel(), struct.pack(">I", size))
    time.sleep(5)

def returns(size):
    return np.zeros(size, dtype=np.uint8)
"""


@pytest.fixture
def box(box_factory):
    return box_factory(BOUNDS)


def test_a_frame_over_the_reply_limit_is_refused_from_its_header(box):
    started = time.monotonic()
    with pytest.raises(RunnerLost, match=f"over the limit of {LIMITS.reply_mb} MB"):
        box.call("announce_over_limit", LIMITS.reply_bytes + 1)
    assert time.monotonic() - started < LIMITS.item_seconds  # not waited for


def test_a_value_over_the_reply_limit_is_the_requests_error_and_the_sandbox_goes_on(box):
    reply = box.runner.request(wire.Calls("returns", ((wire.encode([LIMITS.reply_bytes]), wire.encode({})),)))
    error = wire.decode(wire.Reply.from_json(reply).error)
    assert error.type == "ReplyTooLarge" and "over the limit of 4 MB (limits.reply_mb)" in error.message
    assert box.call("returns", 3).tolist() == [0, 0, 0]  # the same sandbox: nothing was lost


def test_the_oom_killer_takes_a_sandbox_first(box):
    """Its score is above every trusted process's (tests/run/test_local.py): one item lost."""
    assert Path(f"/proc/{box.pid}/oom_score_adj").read_text() == "1000\n"


def loaded(zygote, hide, cells: list[str]) -> SandboxRunner:
    source = SourceFile("probe", "probe.py", tuple(Cell(n, code) for n, code in enumerate(cells, 1)))
    runner = SandboxRunner(zygote, source, LIMITS, hide)
    assert runner.load.failure is None, runner.load
    return runner


def test_cell_errors_are_capped_in_number_and_length_at_the_source(zygote, hide):
    runner = loaded(zygote, hide, ["x = 1"] + [f"raise ValueError('{n}' * {ERROR_CHARS})" for n in range(300)])
    try:
        errors = runner.load.cell_errors
        assert len(errors) == CELL_ERRORS + 1
        assert [n for n, _ in errors] == list(range(2, CELL_ERRORS + 3))
        assert all(len(error) <= ERROR_CHARS for _, error in errors)
        assert errors[-1][1] == (f"... and {300 - CELL_ERRORS} more cell(s) raised errors "
                                 f"(only the first {CELL_ERRORS} are kept)")
    finally:
        runner.close()


FORGED_LOAD = """
import json as _json, os as _os, stat as _stat, struct as _struct

def _is_socket(fd):
    try:
        return _stat.S_ISSOCK(_os.fstat(fd).st_mode)
    except OSError:  # not open
        return False

_fd = next(fd for fd in range(3, 256) if _is_socket(fd))
_body = _json.dumps([1, {"event": "loaded", "errors": [[n, "E" * 3000] for n in range(1000)]}]).encode()
_os.write(_fd, _struct.pack(">I", len(_body)) + _body)
"""


def test_cell_errors_a_student_forges_are_capped_again_by_the_worker(zygote, hide):
    """The load's own reply (3 MB, within the reply limit), written by the student's first cell
    (request 1 is the load): the worker keeps no more of it than the sandbox would have sent."""
    runner = loaded(zygote, hide, [FORGED_LOAD])
    try:
        errors = runner.load.cell_errors
        assert len(errors) == CELL_ERRORS + 1
        assert all(len(error) <= ERROR_CHARS for _, error in errors)
        assert "950 more cell(s)" in errors[-1][1]
        assert len(json.dumps(errors)) < (CELL_ERRORS + 1) * (ERROR_CHARS + 20)
    finally:
        runner.close()
