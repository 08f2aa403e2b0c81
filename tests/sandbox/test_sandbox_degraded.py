"""The rungs for hosts without namespaces (forced here with ATTENTION_GRADER_SANDBOX=
degraded or landlock): rlimits, a new session and process group, a working folder of its
own, a system-call filter that keeps the grader's processes and files out of reach,
leftover processes (a fork swarm too) still ended; on the landlock rung, files outside the
system and the interpreter unreadable too. The run says so once and records it."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_support import LIMITS, Box, alive, forced_zygote, interpreter_closed_to_other_users

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.runners.protocol import ItemTimeout
from grader.sandbox.child import _descendants
from grader.sandbox.handles import Zygote
from grader.sandbox.ladder import RUNG_VARIABLE
from grader.sandbox.paths import PROJECT_ROOT

pytestmark = pytest.mark.timeout(180)

CODE = r"""
import os, signal, tempfile, time

def where():
    return [os.getcwd(), os.environ["TMPDIR"], tempfile.gettempdir(), os.getsid(0), os.getpgrp(),
            os.getpid()]

def daemon():
    read, write = os.pipe()
    if os.fork() == 0:
        try:
            os.setsid()  # refused by the sandbox's filter: a daemon recipe goes on without
        except OSError:
            pass
        pid = os.fork()
        if pid == 0:
            os.write(write, str(os.getpid()).encode())
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(3600)
        os._exit(0)
    os.close(write)
    pid = int(os.read(read, 100))
    os.wait()
    return pid

def spin():
    while True:
        pass

def attempt(what, *args):
    import ctypes, socket
    actions = {
        "kill": lambda pid: os.kill(pid, signal.SIGSTOP),
        "killpg": lambda pid: os.killpg(os.getpgid(pid), signal.SIGSTOP),
        "kill_all": lambda: os.kill(-1, signal.SIGKILL),
        "ptrace": lambda pid: ctypes.CDLL(None, use_errno=True).ptrace(16, pid, 0, 0) == 0
            or (_ for _ in ()).throw(OSError(ctypes.get_errno(), "ptrace")),
        "memory": lambda pid: open(f"/proc/{pid}/mem", "rb").close(),
        "environ": lambda pid: open(f"/proc/{pid}/environ", "rb").read(),
        "write": lambda path: open(path, "a").close(),
        "create": lambda path: open(path, "x").close(),
        "truncate": lambda path: os.truncate(path, 0),
        "chmod": lambda path: os.chmod(path, 0),
        "unlink": lambda path: os.unlink(path),
        "rename": lambda path: os.rename(path, path + "~"),
        "read": lambda path: open(path).read(),
        "socket": lambda: socket.socket().connect(("127.0.0.1", 22)),
        "unix": lambda path: socket.socket(socket.AF_UNIX).connect(path),
    }
    try:
        result = actions[what](*args)
        return "done" if what != "read" else result
    except OSError as exc:
        return type(exc).__name__

def swarm():
    # Every member forks as fast as it can, forever: killing one frees a slot for another.
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""


@pytest.fixture(scope="module", params=["degraded", "landlock"])
def degraded_zygote(request) -> Iterator[Zygote]:
    if request.param == "landlock" and not _has_landlock():
        pytest.skip("this kernel has no Landlock (or the filter has no table for this machine)")
    if interpreter_closed_to_other_users():
        pytest.skip("as root, this interpreter lies in a folder closed to other users: the rung refuses "
                    "(tested below); tests/unprivileged.py --root runs these with the way open")
    zygote = forced_zygote(request.param)
    yield zygote
    zygote.close()


@pytest.fixture
def box(degraded_zygote, hide) -> Iterator[Box]:
    box = Box(degraded_zygote, CODE, LIMITS, hide)
    assert box.runner.load.failure is None, box.runner.load
    yield box
    box.close()


@pytest.mark.parametrize("rung", ["degraded", "landlock"])
def test_a_root_grader_without_namespaces_refuses_an_interpreter_its_sandboxes_cannot_reach(rung, tmp_path):
    """Without namespaces a root grader runs each sandbox as a uid of its own: a module the
    zygote did not import (numpy.testing) would be out of the student's reach, and correct
    code would lose its points. The run refuses at once instead, in one line naming the fix."""
    if not interpreter_closed_to_other_users():
        pytest.skip("needs root and an interpreter in a folder closed to other users (a pyenv under /root)")
    if rung == "landlock" and not _has_landlock():
        pytest.skip("this kernel has no Landlock")
    (tmp_path / "class" / "ada").mkdir(parents=True)
    shutil.copy(HONEST_NUMPY, tmp_path / "class" / "ada" / "attention_numpy.py")
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(tmp_path / "class"), "--out",
                           str(tmp_path / "out"), "--no-progress"], capture_output=True, text=True,
                          env={**os.environ, RUNG_VARIABLE: rung}, timeout=170)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"sandbox ({rung})" in errors[0] and "cannot import from" in errors[0] and "chmod o+x" in errors[0]
    assert not (tmp_path / "out").exists()


def _has_landlock() -> bool:
    from grader.sandbox import guard, landlock

    return guard.available() and landlock.abi() >= 1


def test_the_zygote_reports_the_fallback(degraded_zygote):
    rung = degraded_zygote.rung
    assert rung.name in ("degraded", "landlock") and not rung.namespaces
    assert rung.drop_uid == (os.geteuid() == 0)  # root can still give a uid of its own
    assert RUNG_VARIABLE in rung.notes[0]


def test_the_graders_processes_are_out_of_reach(box, degraded_zygote):
    grader = degraded_zygote.process.pid  # the zygote: as the worker, the grader's own uid
    for what in ("kill", "killpg", "ptrace", "memory", "environ"):
        assert box.call("attempt", what, grader) == "PermissionError", what
    assert box.call("attempt", "kill", os.getpid()) == "PermissionError"
    assert box.call("attempt", "kill_all") == "PermissionError"
    assert degraded_zygote.process.poll() is None
    state = Path(f"/proc/{grader}/stat").read_text().rsplit(")", 1)[1].split()[0]
    assert state not in ("T", "t", "Z", "X"), state  # neither stopped nor dead


def test_files_and_sockets_are_out_of_reach_but_reading_is_not(box, degraded_zygote, tmp_path):
    victim = tmp_path / "classmate.py"
    victim.write_text("ANSWERS = 1\n")
    victim.chmod(0o666)
    tmp_path.chmod(0o777)
    for what in ("write", "truncate", "chmod", "unlink", "rename"):
        assert box.call("attempt", what, str(victim)) == "PermissionError", what
    assert box.call("attempt", "create", str(tmp_path / "new.py")) == "PermissionError"
    assert box.call("attempt", "socket") == "PermissionError"
    assert box.call("attempt", "unix", "/run/dbus/system_bus_socket") == "PermissionError"
    assert victim.read_text() == "ANSWERS = 1\n" and sorted(os.listdir(tmp_path)) == [victim.name]
    # What the degraded rung gives up, and says so: files the grader's user may read (as
    # root, the sandbox has a uid of its own, and pytest's folders are root's alone).
    if degraded_zygote.rung.landlock:
        assert box.call("attempt", "read", str(victim)) == "PermissionError"
    elif not degraded_zygote.rung.drop_uid:
        assert box.call("attempt", "read", str(victim)) == "ANSWERS = 1\n"


def test_landlock_keeps_the_project_class_and_output_unreadable(box, degraded_zygote, dirs):
    if not degraded_zygote.rung.landlock:
        pytest.skip("the degraded rung gives up secrecy (test_files_and_sockets_... says so)")
    class_dir, out_dir = dirs
    for path in (PROJECT_ROOT / "reference" / "attention_numpy.py", PROJECT_ROOT / "grader" / "wire.py",
                 class_dir / "classmate" / "attention_numpy.py", out_dir / "grades.csv"):
        assert box.call("attempt", "read", str(path)) == "PermissionError", path
    assert box.call("attempt", "read", "/etc/hostname") not in ("PermissionError", "FileNotFoundError")
    if not degraded_zygote.rung.drop_uid:  # (root's own interpreter: root's alone)
        assert box.call("attempt", "read", os.__file__).startswith("r\"\"\"OS routines")


def test_a_fork_swarm_is_ended_with_the_item_that_started_it(box, degraded_zygote):
    with pytest.raises(ItemTimeout):
        box.call("swarm")
    assert not alive(box.pid)
    left = [p for p in _descendants(degraded_zygote.process.pid) if alive(p)]
    assert left == []




def test_a_private_temporary_folder_and_a_session_of_its_own(box):
    cwd, tmpdir, gettempdir, sid, pgrp, pid = box.call("where")
    assert cwd == tmpdir == gettempdir and Path(cwd).name.startswith("grader-sandbox-")
    assert sid == pgrp == pid == box.pid  # leads its own session and process group
    box.close()
    assert not Path(cwd).exists()  # removed with the sandbox


def test_a_daemon_is_still_ended_with_the_item(box):
    pid = box.call("daemon")
    assert alive(pid)
    box.next_item()
    assert not alive(pid)


def test_a_daemon_is_ended_with_a_timed_out_sandbox(box):
    pid = box.call("daemon")
    with pytest.raises(ItemTimeout):
        box.call("spin")
    assert not alive(pid) and not alive(box.pid)


HONEST_NUMPY = PROJECT_ROOT / "reference" / "attention_numpy.py"


def closed_bundle(tmp_path: Path) -> Path:
    """A copy of the bundle and its reference that other users cannot read (pytest's folder of
    root is mode 700): without Landlock, a root grader's sandboxes are kept from the secrets by
    file permissions alone, and a run refuses secrets that other users can read."""
    bundle = DEFAULT_ASSIGNMENT.parent
    shutil.copytree(bundle, tmp_path / "closed" / "assignments" / bundle.name,
                    ignore=shutil.ignore_patterns("sample_class"))
    shutil.copytree(PROJECT_ROOT / "reference", tmp_path / "closed" / "reference")
    return tmp_path / "closed" / "assignments" / bundle.name


def test_a_degraded_run_warns_once_and_records_it(tmp_path):
    if interpreter_closed_to_other_users():
        pytest.skip("as root with this interpreter the rung refuses (tested above); "
                    "tests/unprivileged.py --root runs this with the way open")
    class_dir, out = tmp_path / "class", tmp_path / "out"
    for student in ("ada", "grace"):
        (class_dir / student).mkdir(parents=True)
        shutil.copy(HONEST_NUMPY, class_dir / student / "attention_numpy.py")
    env = {**os.environ, RUNG_VARIABLE: "degraded"}
    assignment = closed_bundle(tmp_path) if os.geteuid() == 0 else DEFAULT_ASSIGNMENT
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(class_dir),
            "--out",
            str(out),
            "--seed",
            "7",
            "--jobs",
            "2",
            "--no-progress",
            "--assignment",
            str(assignment),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=170,
    )
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "sandbox degraded" in line]
    assert len(warnings) == 1 and RUNG_VARIABLE in warnings[0], proc.stderr
    results = json.loads((out / "results.json").read_text())
    sandbox = results["run"]["sandbox"]
    assert sandbox["mode"] == "degraded" and sandbox["namespaces"] is False
    assert "sandbox: degraded" in proc.stderr
    assert len(sandbox["notes"]) == 1 and RUNG_VARIABLE in sandbox["notes"][0]
    with open(out / "grades.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    numpy_items = [item.name for item in load_bundle(DEFAULT_ASSIGNMENT).assignment.items_of("attention_numpy")]
    for row in rows:
        student = next(s for s in results["students"] if s["student"] == row["student"])
        points = {item["name"]: item["points"] for item in student["items"]}
        assert all(float(row[item]) == points[item] for item in numpy_items), row
    assert time.monotonic() - started < 170
