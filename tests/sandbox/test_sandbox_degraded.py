"""The fallback for hosts without namespaces or root (forced here with
ATTENTION_GRADER_SANDBOX=degraded): rlimits, a new session and process group, a private
temporary folder, leftover processes still ended; the run says so once and records it."""

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
from sandbox_support import LIMITS, Box, alive

from grader.bundle import load_bundle
from grader.config import DEFAULT_ASSIGNMENT
from grader.runner import ItemTimeout
from grader.sandbox.client import PROJECT_ROOT, Zygote
from grader.sandbox.policy import MODE_VARIABLE

pytestmark = pytest.mark.timeout(180)

CODE = r"""
import os, signal, tempfile, time

def where():
    return [os.getcwd(), os.environ["TMPDIR"], tempfile.gettempdir(), os.getsid(0), os.getpgrp(),
            os.getpid()]

def daemon():
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
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
"""


@pytest.fixture(scope="module")
def degraded_zygote() -> Iterator[Zygote]:
    saved = os.environ.get(MODE_VARIABLE)
    os.environ[MODE_VARIABLE] = "degraded"
    try:
        zygote = Zygote()
    finally:
        if saved is None:
            del os.environ[MODE_VARIABLE]
        else:
            os.environ[MODE_VARIABLE] = saved
    yield zygote
    zygote.close()


@pytest.fixture
def box(degraded_zygote) -> Iterator[Box]:
    box = Box(degraded_zygote, CODE, LIMITS, [])
    assert box.runner.load.failure is None, box.runner.load
    yield box
    box.close()


def test_the_zygote_reports_the_fallback(degraded_zygote):
    isolation = degraded_zygote.isolation
    assert not isolation.namespaces and not isolation.drop_uid
    assert MODE_VARIABLE in isolation.notes[0]


def test_a_private_temporary_folder_and_a_session_of_its_own(box):
    cwd, tmpdir, gettempdir, sid, pgrp, pid = box.call("where")
    assert cwd == tmpdir == gettempdir and Path(cwd).name.startswith("attention-sandbox-")
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


def test_a_degraded_run_warns_once_and_records_it(tmp_path):
    class_dir, out = tmp_path / "class", tmp_path / "out"
    for student in ("ada", "grace"):
        (class_dir / student).mkdir(parents=True)
        shutil.copy(HONEST_NUMPY, class_dir / student / "attention_numpy.py")
    env = {**os.environ, MODE_VARIABLE: "degraded"}
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
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=170,
    )
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "sandbox degraded" in line]
    assert len(warnings) == 1 and MODE_VARIABLE in warnings[0], proc.stderr
    results = json.loads((out / "results.json").read_text())
    sandbox = results["run"]["sandbox"]
    assert sandbox["namespaces"] is False and sandbox["drop_uid"] is False
    assert len(sandbox["notes"]) == 1 and MODE_VARIABLE in sandbox["notes"][0]
    with open(out / "grades.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    numpy_items = [item.name for item in load_bundle(DEFAULT_ASSIGNMENT).assignment.items_of("attention_numpy")]
    for row in rows:
        student = next(s for s in results["students"] if s["student"] == row["student"])
        points = {item["name"]: item["points"] for item in student["items"]}
        assert all(float(row[item]) == points[item] for item in numpy_items), row
    assert time.monotonic() - started < 170
