"""A student's notebooks take turns in one sandbox (``grader.sandbox.client.Student``): each
in a namespace of its own, the working folder, import path and environment put back, the
processes of the one before ended; a sandbox that is not whole (a crash, a thread left
running) is never passed on, and a fresh one loads only the notebook whose turn it is."""

from __future__ import annotations

from typing import Any

import pytest
from sandbox_support import LIMITS, needs_namespaces

from grader import wire
from grader.runners.protocol import RunnerLost
from grader.sandbox.client import SandboxRunner, Student
from grader.submissions.load import Cell, SourceFile

pytestmark = pytest.mark.timeout(120)

FIRST = r"""
import os, sys, threading, time
os.chdir("/")
sys.path.insert(0, "/first-notebook")
os.environ["FIRST_NOTEBOOK"] = "1"
LEFT_BY_FIRST = 1

def pid():  # this process's mark (a PID namespace numbers every sandbox 1)
    import builtins
    return builtins.__dict__.setdefault("sandbox_mark", os.urandom(8).hex())

def crash():
    os._exit(3)

def start_thread():
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    return 1

def start_process():
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    return 1
"""

SECOND = r"""
import os, sys

def pid():  # this process's mark (a PID namespace numbers every sandbox 1)
    import builtins
    return builtins.__dict__.setdefault("sandbox_mark", os.urandom(8).hex())

def state():
    return [os.getcwd(), "/first-notebook" in sys.path, os.environ.get("FIRST_NOTEBOOK"),
            "LEFT_BY_FIRST" in globals()]

def processes():
    return len([p for p in os.listdir("/proc") if p.isdigit()])
"""


def source(notebook: str, code: str) -> SourceFile:
    return SourceFile(notebook, f"{notebook}.ipynb", (Cell(1, code),))


@pytest.fixture
def student(zygote, hide):
    one = Student(zygote, LIMITS, hide, {"first": 3, "second": 2})
    yield one
    one.close()


def call(runner: SandboxRunner, name: str) -> Any:
    reply = runner.request(wire.Calls(name, ((wire.encode([]), wire.encode({})),)))
    assert isinstance(reply, dict) and "value" in reply, reply
    (value,) = wire.decode(reply["value"])
    return value


def item(runner: SandboxRunner, name: str) -> Any:
    runner.begin_item(name)
    try:
        return call(runner, name)
    finally:
        runner.end_item()


def test_the_second_notebook_loads_into_the_sandbox_the_first_left_whole(student):
    first = student.open(source("first", FIRST))
    pid = item(first, "pid")
    first.close()
    second = student.open(source("second", SECOND))
    assert second.load.failure is None and not second.load.cell_errors, second.load
    assert item(second, "pid") == pid
    second.begin_item("state")
    cwd, on_path, environment, sees_first = call(second, "state")
    second.end_item()
    assert (on_path, environment, sees_first) == (False, None, False)
    assert cwd != "/"
    second.close()


def test_a_sandbox_is_not_passed_on_in_the_middle_of_an_item(student):
    first = student.open(source("first", FIRST))
    first.begin_item("pid")
    pid = call(first, "pid")
    first.close()
    with pytest.raises(RunnerLost):
        call(first, "pid")
    second = student.open(source("second", SECOND))
    assert item(second, "pid") != pid
    second.close()


def test_a_crash_ends_the_sandbox_and_the_next_notebook_gets_a_fresh_one(student):
    first = student.open(source("first", FIRST))
    pid = item(first, "pid")
    first.begin_item("crash")
    with pytest.raises(RunnerLost):
        call(first, "crash")
    first.close()
    second = student.open(source("second", SECOND))
    assert second.load.failure is None
    assert item(second, "pid") != pid
    second.close()


def test_a_thread_the_first_notebook_left_running_costs_it_its_sandbox_not_the_second_its_load(student):
    first = student.open(source("first", FIRST + "\nstart_thread()\n"))
    pid = item(first, "pid")
    first.close()
    second = student.open(source("second", SECOND))
    assert second.load.failure is None and not second.load.cell_errors, second.load
    assert item(second, "pid") != pid
    second.close()


def test_processes_the_first_notebook_started_end_before_the_second_loads(student):
    needs_namespaces()  # the count of its PID namespace's processes
    first = student.open(source("first", FIRST + "\nstart_process()\n"))
    pid = call(first, "pid")  # no item, whose end would end the process
    first.close()
    second = student.open(source("second", SECOND))
    assert item(second, "processes") == 1  # before any item of its own ends them
    assert item(second, "pid") == pid
    second.close()


def test_a_sandbox_may_run_every_later_notebook_and_its_cpu_limit_covers_them(student):
    first = student.open(source("first", FIRST))
    second = student.open(source("second", SECOND))
    load, per_item = LIMITS.load_seconds, LIMITS.item_seconds
    assert first.spec.cpu_seconds == int(2 * load + 5 * per_item) + 5
    assert second.spec.cpu_seconds == int(load + 2 * per_item) + 5
    first.close()
    second.close()
