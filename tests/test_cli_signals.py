"""End to end: schedulers stop a run with SIGTERM (Slurm, systemd, Kubernetes, CI and tox
timeouts), a closed terminal with SIGHUP, and an impatient one with SIGKILL. The first two end
a run as Ctrl-C does (one line, the staging folder removed, OUT as it was); after any of them,
every process the run started is gone within seconds, student code that loops included,
counted by descent from this test (a subreaper), whatever its uid, session or namespace."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from process_support import descendants, runs_adopted
from test_cli_outputs import HANG, student

pytest.importorskip("torch")

STUDENTS = 2


@pytest.fixture(scope="module")
def looping_class(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Students whose every NumPy item loops until its time limit: whenever the run is
    stopped, a sandbox is running student code."""
    class_dir = tmp_path_factory.mktemp("signals") / "class"
    for number in range(STUDENTS):
        student(class_dir, f"loops{number}", HANG)
    return class_dir


def start(class_dir: Path, out: Path) -> subprocess.Popen[bytes]:
    return command("grade", str(class_dir), "--out", str(out), "--seed", "1", "--jobs", str(STUDENTS), "--no-progress")


def command(*arguments: str) -> subprocess.Popen[bytes]:
    """The real CLI, in a session of its own (a group to signal, as a scheduler does)."""
    return subprocess.Popen([sys.executable, "-m", "grader", *arguments], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def session(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return int(stat[stat.rfind(b")") + 2:].split()[3])


def sandboxes(run: subprocess.Popen[bytes], ours: set[int]) -> set[int]:
    """The run's processes in a session of their own: its sandboxes (each calls setsid)."""
    found = set()
    for pid in descendants() - ours:
        try:
            if session(pid) != run.pid:
                found.add(pid)
        except OSError:
            continue
    return found


def grading(run: subprocess.Popen[bytes], ours: set[int]) -> None:
    """Wait until student code runs: a sandbox is there (polled, the run's own progress says when)."""
    deadline = time.monotonic() + 300
    while not sandboxes(run, ours):
        assert run.poll() is None, run.stderr.read() if run.stderr else b""
        assert time.monotonic() < deadline, "no sandbox started"
        time.sleep(0.05)


def left_after(ours: set[int], deadline: float) -> list[str]:
    """The run's processes still alive at ``deadline`` (each with its command line and uid)."""
    while (left := descendants() - ours) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [f"{pid} {_describe(pid)}" for pid in sorted(left)]


def _describe(pid: int) -> str:
    try:
        uid = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("Uid:"))
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        return f"{command!r} {uid}"
    except OSError:
        return "(ended)"


def reap_adopted() -> None:
    """The orphans this test adopted, once ended, are its zombies to reap."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def end_while_grading(begin: Callable[[], subprocess.Popen[bytes]], end: Callable[[subprocess.Popen[bytes]], None],
                      seconds: float) -> tuple[subprocess.Popen[bytes], str, list[str]]:
    """``begin`` a run and ``end`` it once student code runs: the run, its stderr, and its
    processes still alive ``seconds`` after ``end``."""
    ours = descendants()
    with runs_adopted():
        run = begin()
        try:
            grading(run, ours)
            sent = time.monotonic()
            end(run)
            _, err = run.communicate(timeout=60)
            left = left_after(ours, sent + seconds)
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
        reap_adopted()
    return run, err.decode(), left


@pytest.mark.parametrize("number, to_group", [(signal.SIGTERM, True), (signal.SIGTERM, False), (signal.SIGHUP, True)],
                         ids=["SIGTERM-to-the-group", "SIGTERM-to-the-main-process", "SIGHUP-to-the-group"])
def test_a_stop_signal_ends_the_run_as_ctrl_c_does(looping_class: Path, tmp_path: Path, number: int, to_group: bool):
    out = tmp_path / "out"
    run, text, left = end_while_grading(lambda: start(looping_class, out),
                                        lambda run: (os.killpg if to_group else os.kill)(run.pid, number), 2)
    lines = [line for line in text.splitlines() if line.strip()]
    name = signal.Signals(number).name
    assert run.returncode == 128 + number, text
    assert re.fullmatch(rf"stopped by {name}: (no|\d+ of {STUDENTS}) students graded; {re.escape(str(out))} was left "
                        r"as it was", lines[-1]), text
    assert "Traceback" not in text
    assert list(tmp_path.iterdir()) == []  # no OUT, as before, and no staging folder
    assert left == []


def test_a_killed_run_leaves_no_student_code_and_the_next_run_removes_its_staging_folder(
        looping_class: Path, tmp_path: Path):
    out = tmp_path / "out"
    # Nothing tells the rest of the run but the channels' ends and the kernel's parent-death
    # signals: a few seconds, not the two a stop gets.
    run, _, left = end_while_grading(lambda: start(looping_class, out), subprocess.Popen.kill, 5)
    assert left == []
    # its staging folder, and the file of its lock on OUT (no longer held: the lock ended with it)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.lock", f".out.partial-{run.pid}"]
    honest = tmp_path / "honest"
    student(honest, "ada")
    again = start(honest, out)
    assert again.communicate(timeout=600) is not None and again.returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["honest", "out"]


def test_a_stop_ends_an_audit_as_ctrl_c_does():
    """The audit's class run is a run like any other: its workers and sandboxes end with it."""
    run, text, left = end_while_grading(lambda: command("audit", "--seed", "1", "--jobs", "2"),
                                        lambda run: os.killpg(run.pid, signal.SIGTERM), 2)
    assert run.returncode == 143, text
    assert text.splitlines()[-1] == "stopped by SIGTERM: audit stopped", text
    assert "Traceback" not in text
    assert left == []
