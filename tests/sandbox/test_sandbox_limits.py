"""Per-item bounds: wall-clock time, memory, processes, file size, printed output; what is
left when an item ends (nothing); and how a crash is reported."""

from __future__ import annotations

import dataclasses
import time

import pytest
from sandbox_support import LIMITS, Raised, members, needs_namespaces, pid_namespace

from grader.runners.protocol import ItemTimeout, RunnerLost

pytestmark = pytest.mark.timeout(120)

HOSTILE = r"""
import ctypes, os, signal, sys, time
import numpy as np

def spin():
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass

def sleep(seconds):
    time.sleep(seconds)
    return "slept"

def bomb():
    return np.ones((1024, 1024, 1024)).sum()

def swarm():
    children = 0
    while True:
        try:
            pid = os.fork()
        except OSError:
            return children
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        children += 1

def daemon():
    read, write = os.pipe()
    if os.fork() == 0:
        try:
            os.setsid()  # refused by the sandbox's filter: a daemon recipe goes on without
        except OSError:
            pass
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.write(write, str(os.getpid()).encode())
            os.close(write)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(3600)
        os._exit(0)
    os.close(write)
    pid = int(os.read(read, 100))
    os.wait()
    return pid

def big_file(megabytes):
    try:
        with open("/tmp/big", "wb") as handle:
            handle.write(b"x" * (megabytes << 20))
        return "written"
    except OSError as exc:
        return type(exc).__name__

def flood(megabytes):
    chunk = "x" * (1 << 20)
    for _ in range(megabytes):
        sys.stdout.write(chunk)
    return "done"

def endless_writer():
    while True:
        os.write(1, b"y" * 65536)

def exit_with(code):
    os._exit(code)

def segfault():
    ctypes.string_at(0)
"""


@pytest.fixture
def box(box_factory):
    needs_namespaces()
    return box_factory(HOSTILE)


def test_an_endless_loop_that_ignores_signals_times_out_on_time(box):
    started = time.monotonic()
    with pytest.raises(ItemTimeout, match="time limit"):
        box.call("spin")
    assert LIMITS.item_seconds <= time.monotonic() - started < LIMITS.item_seconds + 2.0


def test_the_time_limit_is_per_item(box):
    # Most of the item's budget in one call, the rest in the next: together too much.
    assert box.call("sleep", LIMITS.item_seconds * 0.6) == "slept"
    with pytest.raises(ItemTimeout):
        box.call("sleep", LIMITS.item_seconds * 0.6)


def test_sleeping_at_import_fails_the_load_on_time(zygote, hide):
    needs_namespaces()
    from sandbox_support import Box

    limits = dataclasses.replace(LIMITS, load_seconds=1.5)
    started = time.monotonic()
    box = Box(zygote, "import time\ntime.sleep(3600)\n", limits, hide)
    try:
        assert "took longer than 1.5 s (stopped in code cell 1 (" in box.runner.load.failure
        assert time.monotonic() - started < 1.5 + 2.0
    finally:
        box.close()


def _load_cells(zygote, hide, limits, *sources):
    from grader.sandbox.client import SandboxRunner
    from grader.submissions.load import Cell, SourceFile

    cells = tuple(Cell(n, code) for n, code in enumerate(sources, start=1))
    return SandboxRunner(zygote, SourceFile("probe", "probe.ipynb", cells), limits, hide)


def test_a_cell_that_runs_too_long_is_stopped_and_left_out(zygote, hide):
    from grader import wire

    limits = dataclasses.replace(LIMITS, cell_seconds=1.0, load_seconds=5)
    started = time.monotonic()
    runner = _load_cells(zygote, hide, limits, "x = 1\nprint('one')", "print('two')\nwhile True: pass",
                         "def f():\n    return x + 1\nprint('three')")
    try:
        assert 1.0 <= time.monotonic() - started < 1.0 + 2.0
        load = runner.load
        assert load.failure is None and load.stopped == (2,)
        assert load.cell_errors == ((2, "stopped: the cell ran longer than 1 s, so it was left out of the notebook"),)
        assert load.output.split() == ["one", "three"]
        runner.begin_item("probe")
        reply = runner.request(wire.Calls("f", ((wire.encode([]), wire.encode({})),)))
        assert wire.decode(reply["value"]) == [2]
    finally:
        runner.close()


def test_cells_that_keep_overrunning_fail_the_load_within_its_limit(zygote, hide):
    limits = dataclasses.replace(LIMITS, cell_seconds=0.8, load_seconds=2.0)
    started = time.monotonic()
    runner = _load_cells(zygote, hide, limits, *["import time\ntime.sleep(60)"] * 5)
    try:
        assert "took longer than 2 s" in runner.load.failure
        assert time.monotonic() - started < 2.0 + 2.0
    finally:
        runner.close()


def test_a_memory_bomb_fails_the_call_not_the_sandbox(box):
    with pytest.raises(Raised, match="MemoryError"):
        box.call("bomb")
    assert box.call("sleep", 0) == "slept"


def test_the_number_of_processes_is_bounded_and_none_outlives_the_item(box, zygote):
    # In a user namespace the limit counts the sandbox's own uid there, not the grader's.
    namespace = pid_namespace(box.pid)
    children = box.call("swarm")
    assert 0 < children < LIMITS.processes
    assert len(members(zygote, namespace)) == children + 1
    box.next_item()
    assert members(zygote, namespace) == {box.pid}


def test_a_double_forked_daemon_does_not_outlive_the_item(box, zygote):
    namespace = pid_namespace(box.pid)
    box.call("daemon")
    assert len(members(zygote, namespace)) == 2
    box.next_item()
    assert members(zygote, namespace) == {box.pid}


def test_files_written_are_bounded(box):
    assert box.call("big_file", LIMITS.file_size_mb + 1) == "OSError"  # EFBIG
    assert box.call("big_file", 0) == "written"


def test_printed_output_is_capped_and_the_item_still_answers(box):
    started = time.monotonic()
    assert box.call("flood", 50) == "done"
    output = box.runner.end_item()
    assert len(output.text) <= LIMITS.output_kb * 1024 + 100
    assert output.text.endswith("more bytes of output were not kept]")
    assert output.dropped_bytes >= 50 * (1 << 20) - LIMITS.output_kb * 1024
    assert time.monotonic() - started < LIMITS.item_seconds + 1


def test_an_endless_writer_still_times_out_on_time(box):
    started = time.monotonic()
    with pytest.raises(ItemTimeout):
        box.call("endless_writer")
    assert time.monotonic() - started < LIMITS.item_seconds + 2.0


def test_an_exit_is_reported_with_its_status(box):
    with pytest.raises(RunnerLost, match="exited with status 3"):
        box.call("exit_with", 3)


def test_a_crash_is_reported_with_its_signal(box):
    with pytest.raises(RunnerLost, match="SIGSEGV"):
        box.call("segfault")


def test_after_a_timeout_the_sandbox_and_its_processes_are_gone(box, zygote):
    namespace = pid_namespace(box.pid)
    box.call("daemon")
    with pytest.raises(ItemTimeout):
        box.call("spin")
    assert members(zygote, namespace) == set()
